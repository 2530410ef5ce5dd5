import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../../db/sql.ts';
import { queueMail } from '../../mail/outbox.ts';
import { DEAD_LETTER_LIMIT } from '../limits.ts';
import type { Attempted } from './attempt-delivery.ts';
import { disable } from './disable-subscriptions.ts';

/**
 * A delivery dead-lettered: its subscription's streak grows (at DEAD_LETTER_LIMIT it is switched
 * off) and a live store's owner is mailed.
 */
export async function deadLetter(tx: EntityManager, a: Attempted) {
  const d = a.delivery;
  const [sub] = await rows<{
    streak: number;
    url: string;
    owner_email: string | null;
    store_name: string;
    livemode: boolean;
  }>(
    tx,
    sql`UPDATE webhook_subscriptions w SET dead_letter_streak = dead_letter_streak + 1
      FROM stores st WHERE w.id = ${d.subscription_id} AND st.id = w.store_id
      RETURNING w.dead_letter_streak AS streak, w.url, st.owner_email, st.name AS store_name, w.livemode`,
  );
  if (!sub) return;
  const autoDisable = sub.streak >= DEAD_LETTER_LIMIT;
  if (autoDisable) await disable(tx, [d.subscription_id], 'dead_letters');
  // Test mode mails nobody: a test endpoint's failures are in its delivery log.
  if (!sub.owner_email || !sub.livemode) return;
  const last = a.status ? `HTTP ${a.status}` : (a.error ?? 'no answer');
  await queueMail(tx, {
    storeId: d.store_id,
    kind: autoDisable ? 'webhook_disabled' : 'webhook_dead_letter',
    to: sub.owner_email,
    subject: autoDisable
      ? `Webhook endpoint disabled after ${DEAD_LETTER_LIMIT} failed events: ${sub.url}`
      : `Webhook event ${d.event} could not be delivered to ${sub.url}`,
    text:
      `Hello ${sub.store_name},\n\nThe event ${d.event} (${d.event_key}) could not be delivered to ${sub.url} ` +
      `after ${d.round_attempts + 1} attempts; the last one ended with ${last}. ` +
      'You can see every attempt in the delivery log and resend the event from there.' +
      (autoDisable
        ? `\n\nThis endpoint failed ${DEAD_LETTER_LIMIT} events in a row, so it has been disabled. ` +
          'Set it to active again once it can receive events.'
        : '') +
      '\n\nStockless',
  });
}
