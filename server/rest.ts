import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { wwwAuthenticate } from '../src/auth/credentials.ts';
import { atRestKey } from '../src/db/at-rest.ts';
import { type AppError, INTERNAL_ERROR_BODY, STATEMENT_BUDGET, wireErrorBody } from '../src/errors.ts';
import { ANSWERS_KEY_LABEL } from '../src/idempotency/keys.ts';
import type { DescribeOperation } from '../src/request-log/entry.ts';
import { appRouter } from '../src/router.ts';
import type { Context, DomainSettings } from '../src/trpc/context.ts';
import { shapeError } from '../src/trpc/errors.ts';
import type { Meta } from '../src/trpc/init.ts';
import { proceduresMeta } from '../src/trpc/meta.ts';
import type { RequestState } from '../src/trpc/request-state.ts';
import {
  InputRefused,
  isBlank,
  type Params,
  parseJsonBody,
  parseParams,
  readBytes,
  refusalError,
  unsupportedMediaType,
  utf8Text,
} from './http-input.ts';
import { admitKeyed, holdAnswer, type IdempotencyDeps, runKeyed, stepsGate } from './idempotency.ts';
import type { Logger } from './logger.ts';
import { stateOf } from './request-state.ts';
import type { RequestTarget } from './request-target.ts';
import { didYouMean, suggest } from './suggest.ts';

const MAX_BODY_BYTES = 1_000_000;

export interface RestDeps {
  createContext(req: IncomingMessage, state: RequestState): Context;
  /** A new EntityManager, apart from any request's. */
  em(): EntityManager;
  /** The database pool's size: keyed operations that commit in steps take two connections each. */
  poolSize: number;
  settings: DomainSettings;
  publicUrl: string;
  log: Logger;
  /** The contract's operations under /api/v1/ (`restRoutes` of the OpenAPI document). */
  routes: readonly RestRoute[];
}

/** One operation of the contract: its method, and its path template as the adapter matches it. */
export interface RestRoute {
  method: string;
  template: string;
  pattern: RegExp;
  /** The names of the path's parameters (`{id}`), which a body must not carry. */
  params: string[];
  /** The query parameters the operation declares: any other is refused. */
  query: string[];
  /** The contract's operationId (the request log names each request's operation by it). */
  operationId?: string;
}

const OPERATION_METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
/** The order `Allow` lists methods in. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A path as trpc-to-openapi normalises it before matching (no trailing slash). */
const normalised = (path: string) => `/${path.replace(/^\/|\/$/g, '')}`;

/**
 * Every operation the OpenAPI document declares under /api/v1/ (the routers' and the hand-added raw
 * ones), read once at start, matched as trpc-to-openapi matches: a parameter is one segment, case
 * is ignored.
 */
export function restRoutes(doc: { paths?: Record<string, object | undefined> }): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    if (!template.startsWith('/api/v1/') || !item) continue;
    const { pattern, params } = templatePattern(template);
    for (const method of OPERATION_METHODS) {
      const operation = (
        item as Record<string, { operationId?: string; parameters?: { in?: string; name?: string }[] }>
      )[method];
      if (!operation) continue;
      const query = (operation.parameters ?? []).flatMap((p) => (p.in === 'query' && p.name ? [p.name] : []));
      const { operationId } = operation;
      routes.push({ method: method.toUpperCase(), template, pattern, params, query, operationId });
    }
  }
  return routes;
}

/** A path template (`/api/v1/orders/{id}`) as a pattern, and its parameters' names. */
function templatePattern(template: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(part.slice(1, -1));
      return '[^/]+';
    })
    .join('');
  return { pattern: new RegExp(`^${normalised(source)}$`, 'i'), params };
}

/**
 * The methods a REST path answers, in `Allow`'s form (HEAD wherever GET, and OPTIONS), or undefined
 * when no operation has this path: that is a 404, not a 405.
 */
export function allowedMethods(routes: readonly RestRoute[], path: string): string[] | undefined {
  const target = normalised(path);
  const methods = new Set(routes.filter((r) => r.pattern.test(target)).map((r) => r.method));
  if (methods.size === 0) return undefined;
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return METHOD_ORDER.filter((m) => methods.has(m));
}

/**
 * The error body on the wire: the request's error as the contract answers it, shaped once (RequestState
 * `error`). trpc-to-openapi writes a body of its own (`code` overwritten with the tRPC code, validation
 * messages with a generic one), which is dropped unread.
 */
function contractErrorText(state: RequestState): string {
  return JSON.stringify(wireErrorBody(state.error?.body ?? INTERNAL_ERROR_BODY, state));
}

const metaByPath = proceduresMeta(appRouter);

/** A procedure's declared success status (201 for creates), from its meta. */
function successStatus(path: string | undefined): number {
  return (path && metaByPath.get(path)?.successStatus) || 200;
}

/** The procedures' writes under /api/v1, matched as routes are: a keyed write needs its meta first. */
const writeMetas = [...metaByPath.values()].flatMap((meta) => {
  const op = meta.openapi;
  if (!op?.path.startsWith('/api/v1/') || op.method === 'GET') return [];
  return [{ method: op.method, pattern: templatePattern(op.path).pattern, meta }];
});

function writeMetaOf(method: string | undefined, path: string): Meta | undefined {
  const target = normalised(path);
  return writeMetas.find((w) => w.method === method && w.pattern.test(target))?.meta;
}

export function createRestHandler(deps: RestDeps) {
  const handler = createOpenApiNodeHttpHandler({
    router: appRouter,
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req }) => deps.createContext(req, stateOf(req)),
    responseMeta: ({ errors, paths, ctx }) => {
      const state = ctx?.request;
      const error = errors[0];
      if (!error)
        return { status: state?.status ?? successStatus(paths?.[0]), headers: state?.headers ?? {} };
      // onError shaped it into the state; a request refused before its context has none to carry it.
      const shaped = state?.error ?? shapeError(error);
      const headers: Record<string, string> = { ...state?.headers, ...shaped.headers };
      if (shaped.status === 401) {
        headers['WWW-Authenticate'] = wwwAuthenticate(deps.publicUrl);
      }
      return { status: shaped.status, headers };
    },
    onError: ({ error, path, req }) => {
      const shaped = shapeError(error);
      stateOf(req).error = shaped;
      // A statement stopped by the budget is logged once, with its request, by the API pool.
      if (shaped.status >= 500 && shaped.body.code !== STATEMENT_BUDGET.code)
        deps.log.error({ err: error.cause ?? error, path }, 'procedure failed');
    },
  });

  const idempotency: IdempotencyDeps = {
    em: deps.em,
    publicUrl: deps.publicUrl,
    log: deps.log,
    settings: deps.settings,
    answersKey: atRestKey(deps.settings.webhooks.secretKey, ANSWERS_KEY_LABEL),
    steps: stepsGate(Math.max(1, Math.floor(deps.poolSize / 2) - 1)),
  };

  return async (req: IncomingMessage, res: ServerResponse, state: RequestState, target: RequestTarget) => {
    try {
      await readInput(req, target, deps.routes);
    } catch (err) {
      if (!(err instanceof InputRefused)) throw err;
      // Nothing of the input reaches the procedure; its refusal does, after authentication (the
      // order rule, RequestState.refusedInput).
      state.refusedInput = refusalError(err);
      Object.assign(req, { query: Object.create(null), body: undefined });
      req.headers['content-type'] = 'application/json';
    }
    await answer(req, res, state, target, idempotency, (r, s) => handler(r, s));
  };
}

/**
 * Runs the operation, under its Idempotency-Key when it has one (server/idempotency.ts), and puts the
 * contract's error body and the length on its answer.
 */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  state: RequestState,
  target: RequestTarget,
  idempotency: IdempotencyDeps,
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
) {
  const shape = (chunk: unknown) => {
    let out = chunk;
    if (res.statusCode >= 400 && typeof out === 'string') out = contractErrorText(state);
    if (typeof out === 'string') res.setHeader('Content-Length', Buffer.byteLength(out));
    return out;
  };
  // A refused input runs nothing, so it claims no key.
  const meta = writeMetaOf(req.method, target.path);
  const keyed = state.refusedInput ? undefined : await admitKeyed(req, res, target, meta, idempotency, state);
  if (keyed === 'answered') return;
  if (keyed) {
    return runKeyed(res, state, keyed, idempotency, async (em) => {
      state.keyed = { ...state.keyed, em };
      const hold = holdAnswer(res, shape, () => state.error?.body.code);
      try {
        await handler(req, res);
      } catch (err) {
        hold.release();
        throw err;
      }
      return hold.held;
    });
  }
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => end(shape(chunk))) as ServerResponse['end'];
  await handler(req, res);
}

/**
 * Reads the query and the body here instead of in the adapter, which would parse the query into a
 * plain object (`?constructor=1` then fails on `Object.prototype.constructor.push`), admit any
 * `application/json…` media type, read a body only when the operation declares one, and hand JSON of
 * any depth to the procedures. The adapter takes what is found on `req.query` and `req.body`.
 */
async function readInput(req: IncomingMessage, target: RequestTarget, routes: readonly RestRoute[]) {
  const withInput = req as IncomingMessage & { query?: Params; body?: unknown };
  withInput.query = parseParams(target.search);
  const route = routeOf(routes, req.method, target.path);
  refuseUnknownParameters(withInput.query, route);
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return;
  const type = req.headers['content-type'];
  const bytes = await readBytes(req, MAX_BODY_BYTES);
  // An action with nothing to send (`curl -X POST …/rotate-secret`) may carry any media type or
  // none: there is no body to misread. Whitespace alone is no body either.
  const blank = isBlank(bytes);
  if (!blank) {
    const media = /^\s*([^;\s]+)\s*(?:;(.*))?$/.exec(type ?? '');
    const charset = /(?:^|;)\s*charset\s*=\s*"?([^";\s]+)/i.exec(media?.[2] ?? '')?.[1]?.toLowerCase();
    if (media?.[1]?.toLowerCase() !== 'application/json') {
      throw new InputRefused(415, 'UNSUPPORTED_MEDIA_TYPE', unsupportedMediaType(type, 'application/json'));
    }
    if (charset && charset !== 'utf-8' && charset !== 'utf8')
      throw new InputRefused(415, 'UNSUPPORTED_MEDIA_TYPE', 'JSON bodies must be UTF-8');
  }
  const body = blank ? undefined : parseJsonBody(utf8Text(bytes));
  // The adapter spreads the body into the input: a string or an array would arrive as index keys.
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
    throw new InputRefused(400, 'VALIDATION_FAILED', 'The request body must be a JSON object', {
      path: '(root)',
      message: 'must be a JSON object',
    });
  // The adapter lays the path's parameters over the body's keys: a body key of that name would be
  // dropped in silence. The body schema has no such field (the contract says so), so it is unknown.
  if (body) {
    const taken = route?.params.find((name) => Object.hasOwn(body, name));
    if (taken) {
      const message = 'unknown field (taken from the path)';
      throw new InputRefused(400, 'VALIDATION_FAILED', `Invalid request: ${taken}: ${message}`, {
        path: taken,
        message,
      });
    }
  }
  withInput.body = body;
  req.headers['content-type'] = 'application/json';
}

/**
 * What a route served outside the adapter (the invoice PDF) must refuse of its query, as the adapter's
 * routes do: the refusal its procedure throws after authentication, or undefined.
 */
export function queryRefusal(
  routes: readonly RestRoute[],
  method: string | undefined,
  target: RequestTarget,
): AppError | undefined {
  try {
    refuseUnknownParameters(parseParams(target.search), routeOf(routes, method, target.path));
    return undefined;
  } catch (err) {
    if (err instanceof InputRefused) return refusalError(err);
    throw err;
  }
}

/** The request log's view of the route table: a request's operationId and declared query parameters. */
export function describeOperation(routes: readonly RestRoute[]): DescribeOperation {
  return (method, path) => {
    const route = routeOf(routes, method, path);
    return route?.operationId ? { operation: route.operationId, query: route.query } : undefined;
  };
}

/** The operation a request is for (HEAD is GET's), or undefined for a path and method it has none of. */
function routeOf(
  routes: readonly RestRoute[],
  method: string | undefined,
  path: string,
): RestRoute | undefined {
  const target = normalised(path);
  const wanted = method === 'HEAD' ? 'GET' : method;
  return routes.find((r) => r.method === wanted && r.pattern.test(target));
}

/**
 * A query parameter the operation does not declare is refused, as an unknown body field is: a typo
 * (`in_stok=true`) would otherwise answer the unfiltered list as if it had been applied. Every unknown
 * one is named at once, with the declared parameter it most likely meant.
 */
function refuseUnknownParameters(query: Params, route: RestRoute | undefined) {
  if (!route) return;
  const unknown = Object.keys(query).filter((name) => !route.query.includes(name));
  if (unknown.length === 0) return;
  const details = unknown.map((name) => {
    const meant = didYouMean(suggest(name, route.query));
    return { path: name, message: meant ? `unknown parameter.${meant}` : 'unknown parameter' };
  });
  const summary = details.map((d) => `${d.path}: ${d.message}`).join('; ');
  throw new InputRefused(400, 'VALIDATION_FAILED', `Invalid request: ${summary}`, details);
}
