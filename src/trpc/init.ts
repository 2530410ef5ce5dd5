import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AppScopeRule, McpOnlyScope } from '../auth/actor.ts';
import { AppError, wireErrorBody } from '../errors.ts';
import type { OperationLimit } from '../ratelimit/keys.ts';
import { inProcedureSpan } from '../tracing/procedure-span.ts';
import type { Context } from './context.ts';
import { jsonRpcCodeOf, shapeError } from './errors.ts';

export type Meta = OpenApiMeta<{
  /** The app scope an OAuth app token needs here; `null` refuses app tokens. */
  appScope?: AppScopeRule;
  /** Where apps are refused, the MCP-only scope that lets a vendor MCP token in (webhook management). */
  mcpScope?: McpOnlyScope;
  /** The REST status of a success (default 200), e.g. 201 for a create. */
  successStatus?: number;
  /** The shared limit this operation counts against (per store for inventory, per key for external orders). */
  rateLimit?: OperationLimit;
  /**
   * Whether a request (its body) commits in steps of its own transactions, by design (bulk by
   * filter), so that running it again does only what is missing: under an Idempotency-Key it runs
   * beside the key's transaction instead of in it.
   */
  commitsInSteps?: (body: unknown) => boolean;
  /**
   * A query that may read from a read replica (docs/scaling.md §4): it runs there when the process
   * has one that is up, within REPLICA_MAX_LAG and past the credential's last write; else on the
   * primary. Credentials, scopes and limits are settled on the primary first whatever this says.
   */
  readsFrom?: 'replica';
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // One mapping for both transports: REST unwraps `data.contract`, tRPC clients read it in place.
    errorFormatter({ shape, error, ctx }) {
      const shaped = shapeError(error);
      return {
        message: shaped.body.message,
        // A domain error reaches tRPC wrapped as an internal one: its client sees the category's code.
        code: error.cause instanceof AppError ? jsonRpcCodeOf(error.cause.category) : shape.code,
        data: {
          httpStatus: shaped.status,
          contract: ctx
            ? wireErrorBody(shaped.body, { id: ctx.requestId, publicUrl: ctx.settings.publicUrl })
            : shaped.body,
          headers: shaped.headers,
        },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
// Every procedure, over any transport, runs in its span (src/tracing/procedure-span.ts; none when tracing is off).
export const baseProcedure = t.procedure.use(({ path, type, meta, ctx, next }) =>
  inProcedureSpan(
    { path, type, openapiPath: meta?.openapi?.path, requestPath: ctx.request?.target?.path },
    next,
  ),
);
export const createCallerFactory = t.createCallerFactory;
