import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, sql } from '../db/sql.ts';

/**
 * The next invoice number of the current month (UTC), `INV-YYYYMM-NNNNNN`, or `TEST-INV-…` from a
 * counter of its own in test mode. The counter row is updated in the issuing transaction: concurrent
 * issues queue on its lock, a rolled-back issue gives its number back, so numbers are gapless and
 * never reused, and no test invoice takes a live number.
 */
export async function takeInvoiceNumber(tx: EntityManager, livemode: boolean): Promise<string> {
  const row = await first(
    db(tx)
      .insertInto('invoice_counters')
      .values({
        livemode,
        period: sql<string>`to_char(now() AT TIME ZONE 'UTC', 'YYYYMM')`,
        last_value: sql.lit(1),
      })
      .onConflict((oc) =>
        oc
          .columns(['livemode', 'period'])
          .doUpdateSet((eb) => ({ last_value: eb('invoice_counters.last_value', '+', sql.lit(1)) })),
      )
      .returning((eb) => ['period', eb.ref('last_value').as('n')]),
  );
  if (!row) throw new Error('invoice counter returned nothing');
  return `${livemode ? '' : 'TEST-'}INV-${row.period}-${String(row.n).padStart(6, '0')}`;
}
