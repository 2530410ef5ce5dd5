import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { bearerToken, resolveCredential } from '../auth/credentials.ts';
import { sameSecret } from '../auth/secret-tokens.ts';
import { AppError } from '../errors.ts';
import { partnerLimits } from '../ratelimit/keys.ts';
import { type ChargedLimits, enforceLimit } from '../ratelimit/limiter.ts';
import type { Context, DomainSettings } from './context.ts';
import { baseProcedure, type Meta } from './init.ts';
import { routed } from './replica-routing.ts';

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
  const { request } = ctx;
  // Before the scope check: a refusal of a known credential is the store's request (the request log).
  if (request) request.actor = actor;
  authorize(actor, { write: type !== 'query', appScope: meta?.appScope ?? null, mcpScope: meta?.mcpScope });
  // A keyed REST write was charged before its key was looked at (server/idempotency.ts), outside the
  // write's transaction; every other request is charged here.
  const charged = request?.precharged ?? (await chargeLimits(ctx.em, actor, meta, ctx.settings));
  if (request) Object.assign(request.headers, charged.headers);
  if (charged.refusal) throw charged.refusal;
  // The order rule (RequestState.refusedInput): the input's refusal comes after all of the above.
  if (request?.refusedInput) throw request.refusedInput;
  return routed(ctx, actor, meta, type, (em) => next({ ctx: { ...ctx, actor, ...(em ? { em } : {}) } }));
});

/**
 * Counts a request (or `cost` of them at once) against every limit it falls under: an OAuth client's
 * per-store allowance for any call, and the operation's own shared limit. A refusal (429) is answered, not thrown, so a caller
 * outside the procedure (the idempotency layer) can hand it on.
 */
export async function chargeLimits(
  em: Context['em'],
  actor: Actor,
  meta: Meta | undefined,
  settings: DomainSettings,
  cost = 1,
): Promise<ChargedLimits> {
  const headers: Record<string, string> = {};
  try {
    for (const limit of partnerLimits(actor, meta?.rateLimit)) {
      const allowance = settings.rateLimits[limit.allowance];
      // A cost past the whole allowance could never be granted: it takes the whole allowance.
      Object.assign(headers, await enforceLimit(em, limit.key, allowance, Math.min(cost, allowance)));
    }
    return { headers };
  } catch (err) {
    if (err instanceof AppError) return { headers, refusal: err };
    throw err;
  }
}

/** Internal dashboards and operators: the operator token from config (dashboard sessions come later). */
export const internalProcedure = baseProcedure.use(async ({ ctx, next }) => {
  const expected = ctx.settings.operatorToken;
  const token = bearerToken(ctx.headers.authorization);
  if (!sameSecret(token, expected)) {
    throw new AppError('unauthorized', 'INVALID_CREDENTIAL', 'Internal procedures need the operator token');
  }
  return next();
});
