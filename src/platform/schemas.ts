import { z } from 'zod';
import { FEATURES } from './features.ts';

export const setFeatureInput = z.object({ feature: z.enum(FEATURES), enabled: z.boolean() });
export type SetFeatureInput = z.output<typeof setFeatureInput>;
