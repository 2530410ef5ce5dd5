import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, rows, run, sql } from '../db/sql.ts';
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
  const groups = await run(
    db(tx)
      .selectFrom('product_options')
      .select(['id', 'name'])
      .where('product_id', '=', productId)
      .orderBy('position')
      .orderBy('id'),
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
  const json = JSON.stringify(values);
  const clash = await first(
    db(tx)
      .selectFrom('product_variants')
      .select('id')
      .where('product_id', '=', productId)
      .where('retired_at', 'is', null)
      .where((eb) => eb('option_values', '=', eb.cast(eb.val(json), 'jsonb')))
      .where('id', 'is distinct from', exceptVariant ?? null),
  );
  if (clash) {
    throw new AppError('conflict', 'VARIANT_EXISTS', `Variant ${clash.id} already has these option values`, {
      extra: { variant_id: clash.id },
    });
  }
  await recordOptionValues(tx, productId, json, groups.length > 0);
}

/**
 * The option groups take the variant's values: as new groups, in the order jsonb keeps the names,
 * or as values appended to the groups that lack them. Raw SQL: kysely has no typed form of a
 * `jsonb_each_text` row source, and neither statement reads anything back.
 */
async function recordOptionValues(tx: EntityManager, productId: number, json: string, grouped: boolean) {
  if (!grouped) {
    await rows(
      tx,
      sql`INSERT INTO product_options (product_id, name, "values", position)
        SELECT ${productId}, k.name, ARRAY[k.value], k.position
        FROM jsonb_each_text(${json}::jsonb) WITH ORDINALITY AS k(name, value, position)`,
    );
    return;
  }
  await rows(
    tx,
    sql`UPDATE product_options o SET "values" = o."values" || k.value
      FROM jsonb_each_text(${json}::jsonb) AS k(name, value)
      WHERE o.product_id = ${productId} AND o.name = k.name AND NOT (k.value = ANY(o."values"))`,
  );
}

/** A variant SKU is unique across the catalogue: a clash is a 409 naming it, not a 500. */
export async function ensureFreeSku(tx: EntityManager, sku: string, exceptVariant?: number): Promise<void> {
  const taken = await first(
    db(tx)
      .selectFrom('product_variants')
      .select('id')
      .where('sku', '=', sku)
      .where('id', 'is distinct from', exceptVariant ?? null),
  );
  if (taken) {
    throw new AppError('conflict', 'SKU_TAKEN', `SKU ${sku} belongs to variant ${taken.id}`, {
      extra: { details: [{ path: 'sku', message: 'already in use' }] },
    });
  }
}
