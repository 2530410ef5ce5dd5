import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';

/**
 * Checks a variant's option values against its product's option groups and records new values in
 * them. The values must name exactly the product's groups; a product without groups takes the
 * variant's names as its groups. No two live variants of a product may share a combination.
 */
export async function fitOptions(
  tx: EntityManager,
  productId: number,
  values: Record<string, string>,
  exceptVariant?: number,
): Promise<void> {
  const groups = await rows<{ id: number; name: string }>(
    tx,
    sql`SELECT id, name FROM product_options WHERE product_id = ${productId} ORDER BY position, id`,
  );
  const names = Object.keys(values);
  if (groups.length) {
    const wanted = groups.map((g) => g.name).sort();
    if (names.length !== wanted.length || [...names].sort().some((n, i) => n !== wanted[i])) {
      throw new AppError(
        'bad_request',
        'OPTIONS_MISMATCH',
        `option_values must name exactly the product's options: ${wanted.join(', ')}`,
        { extra: { details: [{ path: 'option_values', message: `expected keys ${wanted.join(', ')}` }] } },
      );
    }
  }
  const [clash] = await rows<{ id: number }>(
    tx,
    sql`SELECT id FROM product_variants
      WHERE product_id = ${productId} AND retired_at IS NULL AND option_values = ${JSON.stringify(values)}::jsonb
        AND id IS DISTINCT FROM ${exceptVariant ?? null}::integer`,
  );
  if (clash) {
    throw new AppError('conflict', 'VARIANT_EXISTS', `Variant ${clash.id} already has these option values`, {
      extra: { variant_id: clash.id },
    });
  }
  if (!groups.length) {
    await rows(
      tx,
      sql`INSERT INTO product_options (product_id, name, "values", position)
        SELECT ${productId}, k.name, ARRAY[k.value], k.position
        FROM jsonb_each_text(${JSON.stringify(values)}::jsonb) WITH ORDINALITY AS k(name, value, position)`,
    );
    return;
  }
  await rows(
    tx,
    sql`UPDATE product_options o SET "values" = o."values" || k.value
      FROM jsonb_each_text(${JSON.stringify(values)}::jsonb) AS k(name, value)
      WHERE o.product_id = ${productId} AND o.name = k.name AND NOT (k.value = ANY(o."values"))`,
  );
}

/** A variant SKU is unique across the catalogue: a clash is a 409 naming it, not a 500. */
export async function ensureFreeSku(tx: EntityManager, sku: string, exceptVariant?: number): Promise<void> {
  const [taken] = await rows<{ id: number }>(
    tx,
    sql`SELECT id FROM product_variants WHERE sku = ${sku} AND id IS DISTINCT FROM ${exceptVariant ?? null}::integer`,
  );
  if (taken) {
    throw new AppError('conflict', 'SKU_TAKEN', `SKU ${sku} belongs to variant ${taken.id}`, {
      extra: { details: [{ path: 'sku', message: 'already in use' }] },
    });
  }
}
