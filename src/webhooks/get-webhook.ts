import type { PartnerContext } from '../trpc/context.ts';
import { one } from './queries.ts';
import type { WebhookPathInput } from './schemas.ts';

export async function getWebhook(ctx: PartnerContext, { id }: WebhookPathInput) {
  return { webhook: await one(ctx.em, ctx.actor, id) };
}
