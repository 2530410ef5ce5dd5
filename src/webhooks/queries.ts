import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder } from 'kysely';
import { type DB, db } from '../db/kysely.ts';
import { type Owner, ownedBy } from '../db/owned-by.ts';
import { first, isoTime, sql } from '../db/sql.ts';
import { AppError, field, notFound } from '../errors.ts';
import type { WebhookSettings } from '../settings.ts';
import { resolveTarget } from './delivery/url-guard.ts';
import type { Webhook } from './schemas.ts';

/** A subscription as the API shows it (`Webhook`); the signing secret is never read back. */
export const subscription = (eb: ExpressionBuilder<DB, 'webhook_subscriptions'>) =>
  [
    'id',
    'url',
    'events',
    'active',
    'disabled_reason',
    eb.ref('dead_letter_streak').as('failure_streak'),
    'livemode',
    isoTime(eb.ref('created_at')).as('created_at'),
    isoTime(eb.ref('updated_at')).as('updated_at'),
  ] as const;

export const notFoundHook = (id: number) =>
  notFound(`No webhook subscription with id ${id}`, 'WEBHOOK_NOT_FOUND');

/** The same rules as every delivery: https, and a host that resolves only to public addresses. */
export async function checkUrl(url: string, s: WebhookSettings): Promise<string> {
  const target = await resolveTarget(url, s.allowPrivate);
  if (!('address' in target))
    throw new AppError('bad_request', target.code, target.message, { details: field('url', target.message) });
  return target.url.href;
}

export async function one(em: EntityManager, owner: Owner, id: number): Promise<Webhook> {
  const w = await first(
    db(em)
      .selectFrom('webhook_subscriptions')
      .select(subscription)
      .where('id', '=', id)
      .where(ownedBy(owner, 'webhook_subscriptions')),
  );
  if (!w) throw notFoundHook(id);
  return w;
}

/** A subscription that is switched off takes no deliveries, not even one asked for by hand. */
export async function oneActive(em: EntityManager, owner: Owner, id: number): Promise<Webhook> {
  const hook = await one(em, owner, id);
  if (!hook.active) {
    throw new AppError('conflict', 'WEBHOOK_DISABLED', 'The subscription is disabled; set it active first');
  }
  return hook;
}

/** A `DeliverySummary` from a delivery `d` joined to its event `e`, so resend and ping answer alike. */
export const DELIVERY = sql`d.id::integer, e.event, e.event_key, d.status, d.attempts,
  CASE WHEN d.status = 'pending' THEN ${isoTime(sql`d.next_attempt_at`)} END AS next_attempt_at,
  ${isoTime(sql`d.created_at`)} AS created_at`;
