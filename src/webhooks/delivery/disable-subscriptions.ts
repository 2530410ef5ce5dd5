import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../../db/sql.ts';

/** Switches subscriptions off; their pending deliveries are dropped (a resend can bring one back). */
export async function disable(tx: EntityManager, ids: number[], reason: 'manual' | 'gone' | 'dead_letters') {
  await rows(
    tx,
    sql`WITH off AS (
        UPDATE webhook_subscriptions SET active = false, disabled_reason = ${reason}, updated_at = now()
        WHERE id IN (SELECT id FROM webhook_subscriptions WHERE id = ANY (${ids}::integer[]) AND active
          ORDER BY id FOR NO KEY UPDATE)
        RETURNING id
      )
      -- An attempt still out keeps its claim: its write counts it, and the delivery stays discarded.
      UPDATE webhook_deliveries SET status = 'discarded', updated_at = now()
      WHERE subscription_id IN (SELECT id FROM off) AND status = 'pending'`,
  );
}
