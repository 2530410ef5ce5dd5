import type { EntityManager } from '@mikro-orm/postgresql';
import { JOBS, keyedJob } from '../db/jobs.ts';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import { inEnqueueSpan } from '../tracing/job-spans.ts';
import type { EventName, ProductEvent, RecordedPayloads } from './vocabulary/index.ts';

export interface DomainEvent {
  storeId: number;
  /** The mode of the change (a test order's events are test events); live when absent. */
  livemode?: boolean;
  event: EventName;
  entityId: number;
  data?: Record<string, unknown>;
}

/**
 * An event to record, its `data` checked against its name (an order event names its order; the
 * others record what they deliver). Use cases build their events with it.
 */
export function domainEvent<N extends EventName>(
  event: N,
  fields: { storeId: number; entityId: number; livemode?: boolean; data: RecordedPayloads[N] },
): DomainEvent {
  return { ...fields, event };
}

/**
 * Wakes the dispatcher in the caller's transaction: the job exists if and only if the events it will
 * deliver committed. One pending dispatcher job at a time (job key); a new one is created when the
 * pending one is already running, so nothing written after it started is missed.
 */
export async function enqueueDispatch(tx: EntityManager): Promise<void> {
  // Raw SQL: the keyed-job call is an expression of its own (src/db/jobs.ts), selected bare.
  await rows(tx, sql`SELECT ${DISPATCH_WAKE}`);
}

/** The expression behind enqueueDispatch, for a statement that writes events and wakes in one go. */
export const DISPATCH_WAKE = keyedJob(JOBS.dispatchEvents, {
  key: JOBS.dispatchEvents,
  mode: 'preserve_run_at',
  maxAttempts: 25,
});

/** Records events in the caller's transaction (must be one) and wakes the dispatcher. */
export async function recordEvents(tx: EntityManager, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await inEnqueueSpan(JOBS.dispatchEvents, async (traceparent) => {
    // Raw SQL: one statement for any number of events, as unnest() of one array per column.
    await rows(
      tx,
      sql`INSERT INTO domain_events (store_id, event, entity_id, data, livemode, traceparent)
        SELECT *, ${traceparent}::text FROM unnest(${events.map((e) => e.storeId)}::integer[],
          ${events.map((e) => e.event)}::text[], ${events.map((e) => e.entityId)}::bigint[],
          ${events.map((e) => JSON.stringify(e.data ?? {}))}::jsonb[], ${events.map((e) => e.livemode ?? true)}::boolean[])`,
    );
    await enqueueDispatch(tx);
  });
}

/**
 * Set-based form for bulk changes: one event per row of `productIds` (a query returning
 * `product_id`), written by the same statement pattern as the change itself. Raw SQL: a CTE of the
 * caller's raw statement (a data-modifying CTE `changed` feeding it).
 */
export function productEventsFrom(storeId: number, event: ProductEvent, changed: RawBuilder<unknown>) {
  return sql`INSERT INTO domain_events (store_id, event, entity_id, data)
    SELECT ${storeId}, ${event}, c.product_id, jsonb_build_object('product_id', c.product_id)
    FROM ${changed} c`;
}
