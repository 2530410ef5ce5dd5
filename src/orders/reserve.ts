import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { type DB, db } from '../db/kysely.ts';
import { rows, run, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';

export interface Reservation {
  variantId: number;
  productId: number;
  quantity: number;
}

/** A locked variant's stock, with how many variants the statement took stock from. */
type Locked = Pick<Selectable<DB['product_variants']>, 'id' | 'stock_quantity'> & { taken: number };

/**
 * Takes stock for every line or none, in one statement: the variants are locked in id order (so
 * concurrent orders never deadlock) and decremented only if every line has enough; the
 * `CHECK (stock >= 0)` on product_variants is the last line of defence. One round trip, because
 * everything the order does after its first variant lock is time other buyers of that variant wait.
 * Must run inside the order's transaction.
 */
export async function reserveStock(tx: EntityManager, lines: Reservation[]): Promise<void> {
  const wanted = mergeLines(lines);
  const ids = [...wanted.keys()].sort((a, b) => a - b);
  const quantities = ids.map((id) => wanted.get(id)?.quantity ?? 0);
  // Raw SQL: unnest() of the wanted arrays and a row lock inside a MATERIALIZED CTE.
  const locked = await rows(
    tx,
    sql<Locked>`WITH wanted AS (SELECT * FROM unnest(${ids}::integer[], ${quantities}::integer[]) AS w (id, quantity)),
      locked AS MATERIALIZED (
        SELECT id, stock_quantity FROM product_variants WHERE id = ANY(${ids}::integer[]) ORDER BY id FOR UPDATE
      ),
      short AS (
        SELECT 1 FROM wanted w LEFT JOIN locked l ON l.id = w.id WHERE l.id IS NULL OR l.stock_quantity < w.quantity
      ),
      taken AS (
        UPDATE product_variants v SET stock_quantity = v.stock_quantity - w.quantity
        FROM wanted w WHERE v.id = w.id AND NOT EXISTS (SELECT 1 FROM short)
        RETURNING v.id
      )
      SELECT l.id, l.stock_quantity, (SELECT count(*)::integer FROM taken) AS taken FROM locked l`,
  );
  throwIfShort(wanted, new Map(locked.map((v) => [v.id, v.stock_quantity])));
  if ((locked[0]?.taken ?? 0) !== ids.length) throw new Error('stock changed under a row lock');
}

/** The lines by variant, a variant asked twice summed. */
function mergeLines(lines: Reservation[]): Map<number, Reservation> {
  const wanted = new Map<number, Reservation>();
  for (const l of lines) {
    const prev = wanted.get(l.variantId);
    wanted.set(l.variantId, { ...l, quantity: (prev?.quantity ?? 0) + l.quantity });
  }
  return wanted;
}

/** 400 INSUFFICIENT_STOCK naming every short line, unless each has enough. */
function throwIfShort(wanted: Map<number, Reservation>, available: Map<number, number>) {
  const short = [...wanted.values()]
    .filter((w) => (available.get(w.variantId) ?? 0) < w.quantity)
    .map((w) => ({
      product_id: w.productId,
      variant_id: w.variantId,
      requested: w.quantity,
      available: available.get(w.variantId) ?? 0,
    }));
  if (short.length) {
    throw new AppError(
      'bad_request',
      'INSUFFICIENT_STOCK',
      'Not enough stock for every line; nothing was reserved',
      {
        extra: { lines: short },
      },
    );
  }
}

/**
 * What `reserveStock` checks, without taking anything: a test order is refused for want of stock as
 * a live one would be, and leaves the stock every live buyer shares as it was. No lock: nothing is
 * taken, so a concurrent live order cannot be oversold by it.
 */
export async function checkStock(tx: EntityManager, lines: Reservation[]): Promise<void> {
  const wanted = mergeLines(lines);
  const ids = [...wanted.keys()];
  const found = await run(
    db(tx).selectFrom('product_variants').select(['id', 'stock_quantity']).where('id', 'in', ids),
  );
  throwIfShort(wanted, new Map(found.map((v) => [v.id, v.stock_quantity])));
}

/** Gives stock back (cancellation of lines not shipped). */
export async function releaseStock(
  tx: EntityManager,
  lines: { variantId: number; quantity: number }[],
): Promise<void> {
  const positive = lines.filter((l) => l.quantity > 0).sort((a, b) => a.variantId - b.variantId);
  if (!positive.length) return;
  // Raw SQL: the lines arrive as unnest() of two arrays, one statement however many lines.
  await rows(
    tx,
    sql`UPDATE product_variants v SET stock_quantity = v.stock_quantity + w.quantity
      FROM unnest(${positive.map((l) => l.variantId)}::integer[], ${positive.map((l) => l.quantity)}::integer[])
        AS w(id, quantity)
      WHERE v.id = w.id`,
  );
}
