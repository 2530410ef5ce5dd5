import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { encryptSecret, newSigningSecret, secretsKey } from './delivery/signing-secrets.ts';
import { notFoundHook, subscription } from './queries.ts';
import type { WebhookPathInput } from './schemas.ts';

/** The new secret signs every attempt from now on, retries of earlier events included. */
export async function rotateSecret(ctx: PartnerContext, { id }: WebhookPathInput) {
  const secret = newSigningSecret();
  const key = secretsKey(ctx.settings.webhooks.secretKey);
  const w = await first(
    db(ctx.em)
      .updateTable('webhook_subscriptions')
      .set({ secret_encrypted: encryptSecret(key, secret), updated_at: sql`now()` })
      .where('id', '=', id)
      .where(ownedBy(ctx.actor, 'webhook_subscriptions'))
      .returning(subscription),
  );
  if (!w) throw notFoundHook(id);
  return { webhook: w, secret };
}
