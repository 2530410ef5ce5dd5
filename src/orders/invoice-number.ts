import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';

/**
 * The next invoice number of the current month (UTC), `INV-YYYYMM-NNNNNN`. The counter row is
 * updated in the issuing transaction: concurrent issues queue on its lock, a rolled-back issue gives
 * its number back, so numbers are gapless and never reused.
 */
export async function takeInvoiceNumber(tx: EntityManager): Promise<string> {
  const [row] = await rows<{ period: string; n: number }>(
    tx,
    sql`INSERT INTO invoice_counters (period, last_value)
      VALUES (to_char(now() AT TIME ZONE 'UTC', 'YYYYMM'), 1)
      ON CONFLICT (period) DO UPDATE SET last_value = invoice_counters.last_value + 1
      RETURNING period, last_value AS n`,
  );
  if (!row) throw new Error('invoice counter returned nothing');
  return `INV-${row.period}-${String(row.n).padStart(6, '0')}`;
}
