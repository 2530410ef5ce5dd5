import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { listMail } from './list-mail.ts';
import { listMailInput } from './schemas.ts';

/** The mail outbox as operators see it. */
export const mailInternalRouter = router({
  list: internalProcedure.input(listMailInput).query(({ ctx, input }) => listMail(ctx, input)),
});
