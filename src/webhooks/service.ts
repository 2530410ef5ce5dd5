import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { WEBHOOK_EVENTS } from './events.ts';
import { createWebhookEvents } from './fanout.ts';
import { disable } from './record-attempts.ts';
import type {
  AttemptEntry,
  CreateWebhookInput,
  DeliverySummary,
  UpdateWebhookInput,
  Webhook,
} from './schemas.ts';
import { encryptSecret, newSigningSecret, secretsKey } from './secrets.ts';
import { DELIVERY_LOG_SIZE, MAX_SUBSCRIPTIONS_PER_STORE, type WebhookSettings } from './settings.ts';
import { resolveTarget } from './url-guard.ts';
import { wakeDeliveries } from './wake.ts';

const COLUMNS = sql`id, url, events, active, disabled_reason, dead_letter_streak AS failure_streak,
  ${isoTime(sql`created_at`)} AS created_at, ${isoTime(sql`updated_at`)} AS updated_at`;

/** The same rules as every delivery: https, and a host that resolves only to public addresses. */
async function checkUrl(url: string, s: WebhookSettings): Promise<string> {
  const target = await resolveTarget(url, s.allowPrivate);
  if (!('address' in target)) throw badRequest(target.message, target.code);
  return target.url.href;
}

async function one(em: EntityManager, storeId: number, id: number): Promise<Webhook> {
  const [w] = await rows<Webhook>(
    em,
    sql`SELECT ${COLUMNS} FROM webhook_subscriptions WHERE id = ${id} AND store_id = ${storeId}`,
  );
  if (!w) throw notFound(`No webhook subscription with id ${id}`, 'WEBHOOK_NOT_FOUND');
  return w;
}

export async function listWebhooks(em: EntityManager, storeId: number) {
  const webhooks = await rows<Webhook>(
    em,
    sql`SELECT ${COLUMNS} FROM webhook_subscriptions WHERE store_id = ${storeId} ORDER BY id`,
  );
  return { webhooks, valid_events: [...WEBHOOK_EVENTS] };
}

export async function getWebhook(em: EntityManager, storeId: number, id: number) {
  return { webhook: await one(em, storeId, id) };
}

export async function createWebhook(
  em: EntityManager,
  storeId: number,
  input: CreateWebhookInput,
  s: WebhookSettings,
) {
  const url = await checkUrl(input.url, s);
  const secret = newSigningSecret();
  return em.transactional(async (tx) => {
    // Serialises creates per store, so two at once cannot both be the tenth.
    await rows(tx, sql`SELECT id FROM stores WHERE id = ${storeId} FOR UPDATE`);
    const [{ n } = { n: 0 }] = await rows<{ n: number }>(
      tx,
      sql`SELECT count(*)::integer AS n FROM webhook_subscriptions WHERE store_id = ${storeId}`,
    );
    if (n >= MAX_SUBSCRIPTIONS_PER_STORE) {
      throw new AppError(
        'conflict',
        'WEBHOOK_LIMIT_REACHED',
        `A store can have at most ${MAX_SUBSCRIPTIONS_PER_STORE} webhook subscriptions; delete one first`,
      );
    }
    const [w] = await rows<Webhook>(
      tx,
      sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
        VALUES (${storeId}, ${url}, ${input.events}::text[], ${encryptSecret(secretsKey(s.secretKey), secret)})
        RETURNING ${COLUMNS}`,
    );
    return { webhook: { ...(w as Webhook), secret } };
  });
}

export async function updateWebhook(
  em: EntityManager,
  storeId: number,
  input: UpdateWebhookInput,
  s: WebhookSettings,
) {
  const url = input.url === undefined ? null : await checkUrl(input.url, s);
  return em.transactional(async (tx) => {
    const current = await one(tx, storeId, input.id);
    if (input.active === false && current.active) await disable(tx, [current.id], 'manual');
    const [w] = await rows<Webhook>(
      tx,
      sql`UPDATE webhook_subscriptions SET
          url = COALESCE(${url}, url),
          events = COALESCE(${input.events ?? null}::text[], events),
          active = COALESCE(${input.active ?? null}::boolean, active),
          -- Re-enabling starts afresh: no reason, no streak.
          disabled_reason = CASE WHEN ${input.active ?? null}::boolean THEN NULL ELSE disabled_reason END,
          dead_letter_streak = CASE WHEN ${input.active ?? null}::boolean THEN 0 ELSE dead_letter_streak END,
          updated_at = now()
        WHERE id = ${input.id} AND store_id = ${storeId}
        RETURNING ${COLUMNS}`,
    );
    return { webhook: w as Webhook };
  });
}

export async function deleteWebhook(em: EntityManager, storeId: number, id: number) {
  const [gone] = await rows<{ id: number }>(
    em,
    sql`DELETE FROM webhook_subscriptions WHERE id = ${id} AND store_id = ${storeId} RETURNING id`,
  );
  if (!gone) throw notFound(`No webhook subscription with id ${id}`, 'WEBHOOK_NOT_FOUND');
  return { message: `Webhook subscription ${id} deleted` };
}

/** The new secret signs every attempt from now on, retries of earlier events included. */
export async function rotateSecret(em: EntityManager, storeId: number, id: number, s: WebhookSettings) {
  const secret = newSigningSecret();
  const [w] = await rows<Webhook>(
    em,
    sql`UPDATE webhook_subscriptions SET secret_encrypted = ${encryptSecret(secretsKey(s.secretKey), secret)},
        updated_at = now()
      WHERE id = ${id} AND store_id = ${storeId} RETURNING ${COLUMNS}`,
  );
  if (!w) throw notFound(`No webhook subscription with id ${id}`, 'WEBHOOK_NOT_FOUND');
  return { webhook: w, secret };
}

/** The last 100 attempts, newest first. */
export async function listAttempts(em: EntityManager, storeId: number, id: number) {
  await one(em, storeId, id);
  const deliveries = await rows<AttemptEntry>(
    em,
    sql`SELECT a.id::integer, a.delivery_id::integer, e.event, e.event_key, a.attempt, a.outcome, a.response_status,
        a.error, a.duration_ms, ${isoTime(sql`a.next_attempt_at`)} AS next_attempt_at, ${isoTime(sql`a.created_at`)} AS created_at
      FROM webhook_attempts a
      JOIN webhook_deliveries d ON d.id = a.delivery_id
      JOIN webhook_events e ON e.id = d.event_id
      WHERE a.subscription_id = ${id}
      ORDER BY a.id DESC LIMIT ${DELIVERY_LOG_SIZE}`,
  );
  return { deliveries };
}

const DELIVERY = sql`d.id::integer, e.event, e.event_key, d.status, d.attempts,
  CASE WHEN d.status = 'pending' THEN ${isoTime(sql`d.next_attempt_at`)} END AS next_attempt_at,
  ${isoTime(sql`d.created_at`)} AS created_at`;

/** Queues the event again for this subscription: a new round of attempts, starting now. */
export async function resendDelivery(em: EntityManager, storeId: number, id: number, deliveryId: number) {
  return em.transactional(async (tx) => {
    const hook = await one(tx, storeId, id);
    if (!hook.active) {
      throw new AppError('conflict', 'WEBHOOK_DISABLED', 'The subscription is disabled; set it active first');
    }
    // The subscription first, then its delivery: the order of every writer (the due trigger below
    // takes the subscription's lock too), so a resend never deadlocks with a write of attempts.
    await rows(tx, sql`SELECT 1 FROM webhook_subscriptions WHERE id = ${id} FOR NO KEY UPDATE`);
    const [d] = await rows<DeliverySummary>(
      tx,
      sql`WITH again AS (
          UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = now(),
            updated_at = now()
          WHERE id = ${deliveryId} AND subscription_id = ${id} AND status <> 'pending'
          RETURNING *
        ), current AS (
          SELECT * FROM again
          UNION ALL
          SELECT * FROM webhook_deliveries WHERE id = ${deliveryId} AND subscription_id = ${id}
            AND NOT EXISTS (SELECT 1 FROM again)
        )
        SELECT ${DELIVERY} FROM current d JOIN webhook_events e ON e.id = d.event_id`,
    );
    if (!d) throw notFound(`No delivery ${deliveryId} for webhook subscription ${id}`, 'DELIVERY_NOT_FOUND');
    await wakeDeliveries(tx);
    if (!d) throw new Error('the ping delivery was not created');
    return { delivery: d };
  });
}

/** Sends `webhook.ping` to this subscription alone, whatever events it asked for. */
export async function pingWebhook(em: EntityManager, storeId: number, id: number) {
  return em.transactional(async (tx) => {
    const hook = await one(tx, storeId, id);
    if (!hook.active) {
      throw new AppError('conflict', 'WEBHOOK_DISABLED', 'The subscription is disabled; set it active first');
    }
    const now = new Date();
    await createWebhookEvents(tx, [
      {
        storeId,
        event: 'webhook.ping',
        eventKey: `webhook.ping:${id}.${now.getTime()}`,
        createdAt: now.toISOString(),
        data: { webhook_id: id },
        subscriptionId: id,
      },
    ]);
    const [d] = await rows<DeliverySummary>(
      tx,
      sql`SELECT ${DELIVERY} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.subscription_id = ${id} AND e.event = 'webhook.ping' ORDER BY d.id DESC LIMIT 1`,
    );
    if (!d) throw new Error('the ping delivery was not created');
    return { delivery: d };
  });
}
