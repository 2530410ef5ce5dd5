import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../trpc/errors.ts';

export interface Reservation {
  variantId: number;
  productId: number;
  quantity: number;
}

/**
 * Takes stock for every line or none. Variants are locked in id order (so concurrent orders never
 * deadlock), checked together, then decremented with a conditional UPDATE; the `CHECK (stock >= 0)`
 * on product_variants is the last line of defence. Must run inside the order's transaction.
 */
export async function reserveStock(tx: EntityManager, lines: Reservation[]): Promise<void> {
  const wanted = new Map<number, Reservation>();
  for (const l of lines) {
    const prev = wanted.get(l.variantId);
    wanted.set(l.variantId, { ...l, quantity: (prev?.quantity ?? 0) + l.quantity });
  }
  const ids = [...wanted.keys()].sort((a, b) => a - b);
  const locked = await rows<{ id: number; stock_quantity: number }>(
    tx,
    sql`SELECT id, stock_quantity FROM product_variants WHERE id = ANY(${ids}::integer[]) ORDER BY id FOR UPDATE`,
  );
  const available = new Map(locked.map((v) => [v.id, v.stock_quantity]));
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
  const updated = await rows<{ id: number }>(
    tx,
    sql`UPDATE product_variants v SET stock_quantity = v.stock_quantity - w.quantity
      FROM unnest(${ids}::integer[], ${ids.map((id) => wanted.get(id)?.quantity ?? 0)}::integer[]) AS w(id, quantity)
      WHERE v.id = w.id AND v.stock_quantity >= w.quantity
      RETURNING v.id`,
  );
  if (updated.length !== ids.length) throw new Error('stock changed under a row lock');
}

/** Gives stock back (cancellation of lines not shipped). */
export async function releaseStock(
  tx: EntityManager,
  lines: { variantId: number; quantity: number }[],
): Promise<void> {
  const positive = lines.filter((l) => l.quantity > 0).sort((a, b) => a.variantId - b.variantId);
  if (!positive.length) return;
  await rows(
    tx,
    sql`UPDATE product_variants v SET stock_quantity = v.stock_quantity + w.quantity
      FROM unnest(${positive.map((l) => l.variantId)}::integer[], ${positive.map((l) => l.quantity)}::integer[])
        AS w(id, quantity)
      WHERE v.id = w.id`,
  );
}
