import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { type Owner, ownedBy } from '../db/owned-by.ts';
import { isoTime, run, sql } from '../db/sql.ts';
import type { EventName } from './vocabulary/index.ts';

const BATCH = 1000;

/** One owner's events about one entity (an order): what a caller dispatches in its own transaction. */
interface EntityOf {
  owner: Owner;
  entityId: number;
}

/**
 * Marks up to BATCH pending events dispatched, oldest first, skipping those another worker holds,
 * and answers them with their ids as text (int8). With `only`, just that entity's, waiting for (not
 * skipping) any a worker holds: once it commits they are no longer pending, so none is sent twice
 * and none overtakes an older one.
 */
function takeBatch(tx: EntityManager, only?: EntityOf) {
  const owned = only && ownedBy(only.owner, 'domain_events as d');
  const pending = db(tx)
    .selectFrom('domain_events')
    .select('id')
    .where('dispatched_at', 'is', null)
    .orderBy('id')
    .limit(BATCH)
    .forUpdate();
  return run(
    db(tx)
      .with('taken', (q) =>
        q
          .updateTable('domain_events as d')
          .from(
            (only
              ? pending
                  .where(ownedBy(only.owner, 'domain_events'))
                  .where('entity_id', '=', String(only.entityId))
              : pending.skipLocked()
            ).as('pending'),
          )
          .set({ dispatched_at: sql`now()` })
          .whereRef('d.id', '=', 'pending.id')
          .$if(owned !== undefined, (u) => u.where(owned as NonNullable<typeof owned>))
          .returning([
            'd.id',
            'd.store_id',
            'd.event',
            'd.entity_id',
            'd.data',
            'd.created_at',
            'd.livemode',
            'd.traceparent',
          ]),
      )
      .selectFrom('taken')
      .select((eb) => [
        eb.cast<string>('id', 'text').as('id'),
        'store_id',
        // The outbox writes names from the vocabulary only (recordEvents, productEventsFrom).
        eb.ref('event').$castTo<EventName>().as('event'),
        eb.cast<string>('entity_id', 'text').as('entity_id'),
        eb.ref('data').$castTo<Record<string, unknown>>().as('data'),
        isoTime(eb.ref('created_at')).as('created_at'),
        'livemode',
        'traceparent',
      ])
      // RETURNING has no order of its own: sort the batch after the update, by the bigint id
      // (a bare `id` would name the text output column: '100' before '96').
      .orderBy('taken.id'),
  );
}

export type DispatchedEvent = Awaited<ReturnType<typeof takeBatch>>[number];

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
      const taken = await takeBatch(tx);
      await fanOut(tx, taken);
      return taken;
    });
    for (const e of batch) onEvent(e);
    total += batch.length;
    if (batch.length < BATCH) return total;
  }
}

/**
 * Dispatches one entity's pending events in the caller's transaction, through `fanOut` as the worker
 * would: the event log and webhooks get each event with the entity as it is at this point of the
 * transaction. For a caller that moves an order several steps in one transaction (the test helpers),
 * so each step's event carries its own status, not the last one's.
 */
export async function dispatchEntityEvents(tx: EntityManager, only: EntityOf, fanOut: EventFanOut) {
  const taken = await takeBatch(tx, only);
  await fanOut(tx, taken);
  return taken.length;
}
