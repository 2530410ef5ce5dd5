import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.ts';
import { recordWrite } from '../auth/write-marks.ts';
import { AppError } from '../errors.ts';
import type { Context } from './context.ts';
import type { Meta } from './init.ts';

/** What the rest of a procedure answers (tRPC's middleware result): an error when not ok. */
type Outcome = { ok: boolean };

/**
 * Where a partner procedure runs, once its credential, scope and limits were settled on the primary:
 * - a query whose meta says `readsFrom: 'replica'` on a replica the process offers (up, within the
 *   lag bound, past the credential's last write), and again on the primary if the replica fails it;
 * - anything else on the primary; after a mutation the credential's write mark moves to the
 *   primary's WAL position, so its next reads wait for a replica that has replayed the write.
 * Without replicas (none configured, in-process callers) nothing changes.
 */
export async function routed<R extends Outcome>(
  ctx: Context,
  actor: Actor,
  meta: Meta | undefined,
  type: string,
  run: (em?: EntityManager) => Promise<R>,
): Promise<R> {
  const { replicas } = ctx;
  if (!replicas) return run();
  if (type === 'mutation') {
    const result = await run();
    await markWrite(ctx, actor);
    return result;
  }
  if (meta?.readsFrom !== 'replica' || ctx.em.isInTransaction()) return run();
  const replica = replicas.choose(actor.lastWriteLsn);
  if (!replica) return run();
  const result = await run(replica.em);
  if (result.ok) return result;
  const { error } = result as Outcome & { error?: unknown };
  // `failed` first: it also takes a replica that is down out of the choice.
  if (replica.failed(error) || primaryMayAnswer(error)) return run();
  return result;
}

/**
 * A replica's answer the primary may improve on: a 404 (the replica may not have replayed what a
 * webhook already told the partner of), or a failure that is no answer at all (a driver or connection
 * error of any kind): never a refusal of the partner's input or the statement budget.
 */
function primaryMayAnswer(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: unknown } | undefined;
  // tRPC hands our errors over wrapped: the AppError is the cause.
  if (e?.cause instanceof AppError) return e.cause.category === 'not_found';
  return e?.code === 'NOT_FOUND' || e?.code === 'INTERNAL_SERVER_ERROR';
}

/**
 * Moves the credential's write mark, after its write committed: now, or for a keyed write (whose
 * transaction commits after the procedure) once the idempotency layer has committed it. Before the
 * answer leaves either way, so a read the partner sends after it finds the mark.
 */
async function markWrite(ctx: Context, actor: Actor): Promise<void> {
  const record = (em: EntityManager) =>
    recordWrite(em, actor).catch((err: unknown) => {
      // The write stands; only a read of it on a lagging replica may miss it for a moment.
      ctx.log.warn({ err, request_id: ctx.requestId }, 'write mark not recorded');
    });
  if (!ctx.em.isInTransaction()) return record(ctx.em);
  if (ctx.request) ctx.request.afterCommit = record;
}
