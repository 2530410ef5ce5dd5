import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';

const BATCH = 1000;

export interface DispatchedEvent {
  id: string;
  store_id: number;
  event: string;
  entity_id: string;
  data: Record<string, unknown>;
  created_at: string;
}

/**
 * What a dispatched batch is handed to, in the dispatcher's transaction. Given by the caller (the
 * worker passes the webhook fan-out, `webhookFanOut` in src/webhooks/fanout.ts), so the events
 * layer knows nothing of the domains above it that consume events.
 */
export type EventFanOut = (tx: EntityManager, events: DispatchedEvent[]) => Promise<void>;

/**
 * Takes pending events oldest first and marks them dispatched, in batches, so several workers can
 * share the backlog (SKIP LOCKED). In the same transaction the batch goes to `fanOut`, so an event
 * reaches the webhook subscriptions that want it exactly when it is marked dispatched. Returns how
 * many it dispatched.
 */
export async function dispatchPendingEvents(
  em: EntityManager,
  fanOut: EventFanOut,
  onEvent: (e: DispatchedEvent) => void = () => {},
) {
  let total = 0;
  for (;;) {
    const batch = await em.transactional(async (tx) => {
      const taken = await rows<DispatchedEvent>(
        tx,
        // RETURNING has no order of its own: sort the batch after the update.
        sql`WITH taken AS (
            UPDATE domain_events d SET dispatched_at = now()
            FROM (SELECT id FROM domain_events WHERE dispatched_at IS NULL ORDER BY id LIMIT ${BATCH}
                  FOR UPDATE SKIP LOCKED) pending
            WHERE d.id = pending.id
            RETURNING d.id, d.store_id, d.event, d.entity_id, d.data, d.created_at
          )
          SELECT id::text, store_id, event, entity_id::text, data, ${isoTime(sql`created_at`)} AS created_at
          FROM taken ORDER BY id`,
      );
      await fanOut(tx, taken);
      return taken;
    });
    for (const e of batch) onEvent(e);
    total += batch.length;
    if (batch.length < BATCH) return total;
  }
}
