import type { DB } from './kysely.ts';
import { type RawBuilder, sql } from './sql.ts';

/** A table with a `store_id`: a store owns each of its rows. */
export type StoreTable = { [T in keyof DB]: 'store_id' extends keyof DB[T] ? T : never }[keyof DB];

/** Of those, the tables whose rows also belong to one mode (live or test). */
type ModeTable = { [T in StoreTable]: 'livemode' extends keyof DB[T] ? T : never }[StoreTable];

/**
 * Every store table and whether its rows belong to a mode. The type is derived from the entities, so
 * a new table with a `store_id` (or a `livemode` added to one) does not compile until it is listed
 * here, with the right answer: `ownedBy` can never forget a table's mode.
 */
export const STORE_TABLES: { readonly [T in StoreTable]: T extends ModeTable ? 'mode' : 'store' } = {
  api_keys: 'store',
  dashboard_users: 'store',
  domain_events: 'mode',
  exports: 'mode',
  external_orders: 'mode',
  idempotency_keys: 'mode',
  inventory_feed: 'store',
  listings: 'store',
  mail_outbox: 'store',
  oauth_grants: 'store',
  order_count_deltas: 'mode',
  order_counts: 'mode',
  orders: 'mode',
  purchase_orders: 'store',
  request_log: 'mode',
  sku_mappings: 'store',
  store_cell_deltas: 'store',
  store_cells: 'store',
  store_departments: 'store',
  store_makers: 'store',
  webhook_events: 'mode',
  webhook_subscriptions: 'mode',
};

/**
 * Whose rows: a store in a mode. An `Actor` is one (src/auth/actor.ts), and so is any scope that
 * carries the two, such as an idempotency key's.
 */
export interface Owner {
  readonly storeId: number;
  readonly livemode: boolean;
}

/** A store table as a query names it: `orders`, or `orders as o` when it has an alias. */
export type OwnedTable = StoreTable | `${StoreTable} as ${string}`;

/** What `ownedBy` needs to know of the owner: the mode only for a table that has one. */
type OwnerOf<T extends OwnedTable> = (T extends `${infer N} as ${string}` ? N : T) extends ModeTable
  ? Owner
  : Pick<Owner, 'storeId'>;

/**
 * "This row is the owner's": its store, and its mode where the table has one. Every partner read and
 * write of a store table says it with this (test/edge/owned-by.test.ts checks the statements a partner's
 * requests run). Written as a row comparison, `("o"."store_id", "o"."livemode") = ($1, $2)`, which
 * PostgreSQL's parser expands into the AND of the column equalities, so plans are those of the
 * hand-written AND (docs/decisions.md, "Ownership by construction"); the text is what lets the
 * test recognise it. With `storeAsRange`, the store is said as `>= … AND <= …`: where an equality
 * would let the planner drop the store from the order it needs (src/orders/list-orders.ts).
 */
export function ownedBy<T extends OwnedTable>(
  owner: OwnerOf<T>,
  table: T,
  options?: { storeAsRange?: boolean },
): RawBuilder<boolean> {
  const [name, alias] = table.split(' as ') as [StoreTable, string | undefined];
  const column = (c: string) => sql.ref(alias ? `${alias}.${c}` : c);
  // The type has already asked for the mode exactly where the table has one.
  const mode = STORE_TABLES[name] === 'mode' ? (owner as Owner).livemode : undefined;
  if (options?.storeAsRange) {
    const store = sql`${column('store_id')} >= ${owner.storeId} AND ${column('store_id')} <= ${owner.storeId}`;
    return mode === undefined
      ? sql<boolean>`${store}`
      : sql<boolean>`${store} AND ${column('livemode')} = ${mode}`;
  }
  return mode === undefined
    ? sql<boolean>`(${column('store_id')}) = (${owner.storeId})`
    : sql<boolean>`(${column('store_id')}, ${column('livemode')}) = (${owner.storeId}, ${mode})`;
}
