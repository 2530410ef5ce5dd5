import { z } from 'zod';
import { idParam } from '../trpc/params.ts';

export const createUserInput = z.object({
  storeId: idParam,
  email: z.email().max(200),
  password: z.string().min(10).max(200),
});

export const uninstallAppInput = z.object({ storeId: idParam, clientId: z.string().min(1).max(100) });
