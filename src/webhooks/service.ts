import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder } from 'kysely';
import { type DB, db } from '../db/kysely.ts';
import { first, isoTime, rows, run, sql } from '../db/sql.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { WEBHOOK_EVENTS } from './events.ts';
import { createWebhookEvents } from './fanout.ts';
import { disable } from './record-attempts.ts';
import type { CreateWebhookInput, DeliverySummary, UpdateWebhookInput, Webhook } from './schemas.ts';
import { encryptSecret, newSigningSecret, secretsKey } from './secrets.ts';
import { DELIVERY_LOG_SIZE, MAX_SUBSCRIPTIONS_PER_STORE, type WebhookSettings } from './settings.ts';
import { resolveTarget } from './url-guard.ts';
import { wakeDeliveries } from './wake.ts';

/** A subscription as the API shows it (`Webhook`); the signing secret is never read back. */
const subscription = (eb: ExpressionBuilder<DB, 'webhook_subscriptions'>) =>
  [
    'id',
    'url',
    'events',
    'active',
    'disabled_reason',
    eb.ref('dead_letter_streak').as('failure_streak'),
    isoTime(eb.ref('created_at')).as('created_at'),
    isoTime(eb.ref('updated_at')).as('updated_at'),
  ] as const;

const notFoundHook = (id: number) => notFound(`No webhook subscription with id ${id}`, 'WEBHOOK_NOT_FOUND');

/** The same rules as every delivery: https, and a host that resolves only to public addresses. */
async function checkUrl(url: string, s: WebhookSettings): Promise<string> {
  const target = await resolveTarget(url, s.allowPrivate);
  if (!('address' in target)) throw badRequest(target.message, target.code);
  return target.url.href;
}

async function one(em: EntityManager, storeId: number, id: number): Promise<Webhook> {
  const w = await first(
    db(em)
      .selectFrom('webhook_subscriptions')
      .select(subscription)
      .where('id', '=', id)
      .where('store_id', '=', storeId),
  );
  if (!w) throw notFoundHook(id);
  return w;
}

export async function listWebhooks(em: EntityManager, storeId: number) {
  const webhooks: Webhook[] = await run(
    db(em)
      .selectFrom('webhook_subscriptions')
      .select(subscription)
      .where('store_id', '=', storeId)
      .orderBy('id'),
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
    await run(db(tx).selectFrom('stores').select('id').where('id', '=', storeId).forUpdate());
    const counted = await first(
      db(tx)
        .selectFrom('webhook_subscriptions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('store_id', '=', storeId),
    );
    if (Number(counted?.n ?? 0) >= MAX_SUBSCRIPTIONS_PER_STORE) {
      throw new AppError(
        'conflict',
        'WEBHOOK_LIMIT_REACHED',
        `A store can have at most ${MAX_SUBSCRIPTIONS_PER_STORE} webhook subscriptions; delete one first`,
      );
    }
    const created = await first(
      db(tx)
        .insertInto('webhook_subscriptions')
        .values({
          store_id: storeId,
          url,
          events: input.events,
          secret_encrypted: encryptSecret(secretsKey(s.secretKey), secret),
        })
        .returning(subscription),
    );
    if (!created) throw new Error('the subscription was not inserted');
    return { webhook: { ...created, secret } };
  });
}

export async function updateWebhook(
  em: EntityManager,
  storeId: number,
  input: UpdateWebhookInput,
  s: WebhookSettings,
) {
  const url = input.url === undefined ? undefined : await checkUrl(input.url, s);
  return em.transactional(async (tx) => {
    const current = await one(tx, storeId, input.id);
    if (input.active === false && current.active) await disable(tx, [current.id], 'manual');
    const updated = await first(
      db(tx)
        .updateTable('webhook_subscriptions')
        .set({
          url,
          events: input.events,
          active: input.active,
          // Re-enabling starts afresh: no reason, no streak.
          ...(input.active === true && { disabled_reason: null, dead_letter_streak: 0 }),
          updated_at: sql`now()`,
        })
        .where('id', '=', input.id)
        .where('store_id', '=', storeId)
        .returning(subscription),
    );
    if (!updated) throw notFoundHook(input.id);
    return { webhook: updated };
  });
}

export async function deleteWebhook(em: EntityManager, storeId: number, id: number) {
  const gone = await first(
    db(em)
      .deleteFrom('webhook_subscriptions')
      .where('id', '=', id)
      .where('store_id', '=', storeId)
      .returning('id'),
  );
  if (!gone) throw notFoundHook(id);
  return { message: `Webhook subscription ${id} deleted` };
}

/** The new secret signs every attempt from now on, retries of earlier events included. */
export async function rotateSecret(em: EntityManager, storeId: number, id: number, s: WebhookSettings) {
  const secret = newSigningSecret();
  const w = await first(
    db(em)
      .updateTable('webhook_subscriptions')
      .set({ secret_encrypted: encryptSecret(secretsKey(s.secretKey), secret), updated_at: sql`now()` })
      .where('id', '=', id)
      .where('store_id', '=', storeId)
      .returning(subscription),
  );
  if (!w) throw notFoundHook(id);
  return { webhook: w, secret };
}

/** The last 100 attempts, newest first. */
export async function listAttempts(em: EntityManager, storeId: number, id: number) {
  await one(em, storeId, id);
  const deliveries = await run(
    db(em)
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select((eb) => [
        sql<number>`a.id::integer`.as('id'),
        sql<number>`a.delivery_id::integer`.as('delivery_id'),
        'e.event',
        'e.event_key',
        'a.attempt',
        'a.outcome',
        'a.response_status',
        'a.error',
        'a.duration_ms',
        isoTime(eb.ref('a.next_attempt_at')).as('next_attempt_at'),
        isoTime(eb.ref('a.created_at')).as('created_at'),
      ])
      .where('a.subscription_id', '=', id)
      .orderBy('a.id', 'desc')
      .limit(DELIVERY_LOG_SIZE),
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
