import { authorize } from '../auth/authorize.ts';
import { bearerToken, resolveCredential } from '../auth/credentials.ts';
import { sameSecret } from '../auth/secret-tokens.ts';
import { AppError } from '../errors.ts';
import { appLimitKey, enforceLimit } from '../ratelimit/limiter.ts';
import { baseProcedure } from './init.ts';

/**
 * Partners: an API key, an app token, or a vendor MCP token (preset by the MCP endpoint). Applies the
 * method rule (a `read` credential may only query) and the scope rule named in the procedure's meta.
 */
export const partnerProcedure = baseProcedure.use(async ({ ctx, meta, type, next }) => {
  // In-process callers (tests, dashboards acting for a store) may arrive with the actor resolved, and
  // so may a REST write whose idempotency layer already resolved this request's bearer credential;
  // otherwise the credential is resolved here. Over the wire it is always the request's own header.
  const actor =
    ctx.actor ?? (await resolveCredential(ctx.em, ctx.headers.authorization, ctx.settings.publicUrl));
  authorize(actor, { write: type !== 'query', appScope: meta?.appScope ?? null, mcpScope: meta?.mcpScope });
  ctx.onAuthenticated?.(actor);
  // An OAuth client counts every call against its per-store limit, besides any limit of the operation.
  if (actor.kind !== 'api_key') {
    const headers = await enforceLimit(ctx.em, appLimitKey(actor), ctx.settings.rateLimits.app);
    if (ctx.response) Object.assign(ctx.response.headers, headers);
  }
  if (meta?.rateLimit) {
    const key =
      meta.rateLimit === 'inventory'
        ? `inventory:store:${actor.storeId}`
        : `external_orders:${actor.kind}:${actor.credentialId}`;
    const headers = await enforceLimit(ctx.em, key, ctx.settings.rateLimits[meta.rateLimit]);
    if (ctx.response) Object.assign(ctx.response.headers, headers);
  }
  if (ctx.inputRefusal) throw ctx.inputRefusal;
  return next({ ctx: { ...ctx, actor } });
});

/** Internal dashboards and operators: the operator token from config (dashboard sessions come later). */
export const internalProcedure = baseProcedure.use(async ({ ctx, next }) => {
  const expected = ctx.settings.operatorToken;
  const token = bearerToken(ctx.headers.authorization);
  if (!sameSecret(token, expected)) {
    throw new AppError('unauthorized', 'INVALID_CREDENTIAL', 'Internal procedures need the operator token');
  }
  return next();
});
