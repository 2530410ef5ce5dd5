import { webhookAttempts, webhookDeadLetters, webhookDeliveryLag } from '../../metrics/registry.ts';
import type { Planned } from './backoff.ts';

/** The envelope's `created_at` (src/events/envelope.ts), read without parsing the whole body. */
const CREATED_AT = /"created_at":"([^"]+)"/;

/**
 * Counts a written batch of attempts (after its transaction committed): each by outcome, the
 * dead-lettered, and for each success the lag from the event's commit to now, when the receiver's
 * answer is on record.
 */
export function countAttempts(plan: readonly Planned[], deadLettered: ReadonlySet<string>): void {
  const now = Date.now();
  for (const p of plan) {
    webhookAttempts.inc({ outcome: p.a.outcome });
    if (p.status === 'dead' && deadLettered.has(p.a.delivery.id)) webhookDeadLetters.inc();
    if (p.a.outcome !== 'succeeded') continue;
    const created = Date.parse(CREATED_AT.exec(p.a.delivery.body.slice(0, 400))?.[1] ?? '');
    if (Number.isFinite(created)) webhookDeliveryLag.observe(Math.max(0, now - created) / 1000);
  }
}
