import { z } from 'zod';

export const listMailInput = z.object({ status: z.enum(['queued', 'sent', 'held', 'failed']).optional() });
export type ListMailInput = z.output<typeof listMailInput>;
