import { z } from 'zod';
import { TRIGGERABLE_EVENTS } from '../events/vocabulary/index.ts';
import { idParam } from '../trpc/params.ts';

export const triggerEventInput = z.strictObject({
  storeId: idParam,
  event: z.enum(TRIGGERABLE_EVENTS),
});
export type TriggerEventInput = z.output<typeof triggerEventInput>;
