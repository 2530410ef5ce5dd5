import type { EntityManager } from '@mikro-orm/postgresql';
import { JOBS, keyedJob } from '../db/jobs.ts';
import { rows, sql } from '../db/sql.ts';
import { idsOnlyData, onlyVariant } from '../events/ids-only.ts';
import { fanOutToListingStores, type ListingStoresChange } from '../events/listing-stores.ts';
import { EVENT } from '../events/vocabulary/index.ts';

export type CatalogueEvent = typeof EVENT.product.updated | typeof EVENT.product.deleted;

export interface ProductChange {
  productId: number;
  event: CatalogueEvent;
  /** The variants the change touched; absent or empty when it was the product as a whole. */
  variantIds?: number[];
  /** Whether the inventory feed shows what changed (name, variants, availability). */
  feed: boolean;
}

/**
 * Queues the fan-out of a catalogue change in the caller's transaction, so it exists exactly when
 * the change committed. One pending job per product: changes queued before it runs are merged into
 * its payload (Graphile's batch jobs concatenate array payloads under one job key).
 */
export async function queueProductChange(tx: EntityManager, change: ProductChange): Promise<void> {
  const item = {
    product_id: change.productId,
    event: change.event,
    variant_ids: change.variantIds?.length ? change.variantIds : null,
    feed: change.feed,
  };
  await rows(
    tx,
    sql`SELECT ${keyedJob(JOBS.catalogueFanout, {
      payload: [item],
      key: `${JOBS.catalogueFanout}:${change.productId}`,
      mode: 'replace',
    })}`,
  );
}

interface PlannedFanout {
  productId: number;
  events: ListingStoresChange['events'];
  touchFeed: boolean;
}

/**
 * What a merged `catalogue_fanout` payload asks for: one event of each kind the changes named, with
 * `variant_id` when every change of that kind touched the same single variant (the spec's rule).
 */
export function planProductFanout(payload: unknown): PlannedFanout | null {
  const items = (Array.isArray(payload) ? payload : [payload]) as Record<string, unknown>[];
  const productId = items[0]?.product_id;
  if (typeof productId !== 'number' || !Number.isInteger(productId)) return null;
  const byEvent = new Map<CatalogueEvent, (number[] | null)[]>();
  let touchFeed = false;
  for (const item of items) {
    if (item?.product_id !== productId) return null;
    const event = item.event === EVENT.product.deleted ? EVENT.product.deleted : EVENT.product.updated;
    const changes = byEvent.get(event) ?? [];
    changes.push(Array.isArray(item.variant_ids) ? (item.variant_ids as number[]) : null);
    byEvent.set(event, changes);
    touchFeed ||= item.feed === true;
  }
  const events = [...byEvent].map(([event, changes]) => ({
    event,
    data: idsOnlyData(productId, onlyVariant(changes)),
  }));
  return { productId, events, touchFeed };
}

/** Runs a queued fan-out: every store listing the product gets its events, in batches of stores. */
export async function runProductFanout(
  em: EntityManager,
  payload: unknown,
  onBatch?: (stores: number, ms: number) => void,
): Promise<number> {
  const plan = planProductFanout(payload);
  if (!plan) throw new Error('catalogue_fanout needs a numeric product_id');
  return fanOutToListingStores(
    em,
    plan.productId,
    { events: plan.events, touchFeed: plan.touchFeed },
    undefined,
    onBatch,
  );
}
