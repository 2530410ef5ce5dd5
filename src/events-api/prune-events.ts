import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import {
  DELIVERIES_KEEP,
  eventsKeep,
  floorsQuery,
  PRUNE_BATCH,
  type PrunedTable,
  pruneBatchQuery,
  pruneBoundQuery,
} from './queries.ts';

/** How long the event log keeps an event. */
export const RETENTION_DAYS = 30;

export interface Pruned {
  events: number;
  deliveries: number;
  attempts: number;
}

/**
 * The retention job's work: events created more than 30 days ago go, in batches of `batch` rows in id
 * order, each batch its own statement (no long transaction; readers never wait). An event a pending
 * delivery may still need (a resend of an old one) stays until that delivery ends: of a store with
 * pending deliveries, events from its oldest pending one's on stay (the retry ladder ends within about
 * 15 hours, so this rarely keeps anything). The deliveries (pending ones kept) and the attempt log of
 * that age go too: nothing reads them without their event.
 */
export async function pruneEventLog(
  em: EntityManager,
  o: { now?: Date; batch?: number } = {},
): Promise<Pruned> {
  const batch = o.batch ?? PRUNE_BATCH;
  const before = new Date((o.now ?? new Date()).getTime() - RETENTION_DAYS * 86_400_000).toISOString();
  const floors = await rows(em, floorsQuery());
  const keep = eventsKeep(Object.fromEntries(floors.map((f) => [String(f.store_id), f.floor])));
  return {
    events: await pruneOld(em, 'webhook_events', before, batch, keep),
    deliveries: await pruneOld(em, 'webhook_deliveries', before, batch, DELIVERIES_KEEP),
    attempts: await pruneOld(em, 'webhook_attempts', before, batch, sql``),
  };
}

/** Rows of `table` created before `before` that `keep` lets go, batch after batch; how many went. */
async function pruneOld(
  em: EntityManager,
  table: PrunedTable,
  before: string,
  batch: number,
  keep: RawBuilder<unknown>,
): Promise<number> {
  const [bound] = await rows(em, pruneBoundQuery(table, before, keep));
  let after = '0';
  let total = 0;
  for (;;) {
    const [done] = await rows(
      em,
      pruneBatchQuery(table, { after, bound: bound?.id ?? '0', before, batch, keep }),
    );
    const n = done?.n ?? 0;
    total += n;
    if (n < batch || !done?.last) return total;
    after = done.last;
  }
}
