import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { bearerToken } from '../src/auth/credentials.ts';
import { sameSecret } from '../src/auth/secret-tokens.ts';
import { INTERNAL_ERROR_BODY } from '../src/errors.ts';
import { LocalFileStore } from '../src/exports/file-store.ts';
import type { DescribeOperation } from '../src/request-log/entry.ts';
import type { RequestRecorder } from '../src/request-log/recorder.ts';
import { appRouter } from '../src/router.ts';
import type { Context } from '../src/trpc/context.ts';
import { shapeError } from '../src/trpc/errors.ts';
import type { RequestState } from '../src/trpc/request-state.ts';
import { type Config, domainSettingsOf, exportSettingsOf } from './config.ts';
import { buildOpenApiDocument, CONTRACT_VERSION } from './contract/document.ts';
import { serveDocs } from './docs-route.ts';
import { EXPORT_FILE_PATH, serveExportFile } from './export-file-route.ts';
import { checkHealth } from './health.ts';
import { DEFAULT_READINESS, READY_BOUND_MS, type ReadinessCheck, serveHealthProbe } from './health-probes.ts';
import { traceFields, traceRequest } from './http-span.ts';
import { INVOICE_PATH, serveInvoice } from './invoice-route.ts';
import type { Logger } from './logger.ts';
import { malformedRefusal } from './malformed-request.ts';
import { MCP_PATH, serveMcp } from './mcp/route.ts';
import { observeRequest } from './metrics/http-metrics.ts';
import { handleOAuth, type OAuthDeps } from './oauth/routes.ts';
import type { Orm } from './orm.ts';
import { ProbeClient } from './probe-client.ts';
import { replicaReadiness } from './replicas/observe.ts';
import type { ReplicaSet } from './replicas/replica-set.ts';
import { recordRequest } from './request-log-hook.ts';
import { startRequest, stateOf } from './request-state.ts';
import { readTarget } from './request-target.ts';
import { sendCode, sendError, sendJson } from './respond.ts';
import {
  allowedMethods,
  createRestHandler,
  describeOperation,
  queryRefusal,
  type RestRoute,
  restRoutes,
} from './rest.ts';

export interface AppDeps {
  orm: Orm;
  config: Config;
  log: Logger;
  /** The request log's writer (src/request-log/recorder.ts); none: requests are not logged. */
  requestLog?: RequestRecorder;
  /** Read replicas (server/replicas/): partner reads declared `readsFrom: 'replica'` go there. */
  replicas?: ReplicaSet;
  /** Count and time every request for /metrics (server/metrics/http-metrics.ts); off when absent. */
  metrics?: boolean;
  /** What `/health/ready` checks (server/health-probes.ts): the defaults when absent. */
  readiness?: readonly ReadinessCheck[];
}

type Route = (req: IncomingMessage, res: ServerResponse, state: RequestState) => Promise<void>;

/** A request's procedure context: its state, and the keyed write's credential and transaction if any. */
export type CreateContext = (req: IncomingMessage, state: RequestState) => Context;

/** The tRPC transport: GET (queries) and POST (mutations) only; fetch's Request throws on TRACE and CONNECT. */
function trpcTransport(createContext: CreateContext, log: Logger): Route {
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    createContext: ({ req }) => createContext(req, stateOf(req)),
    onError: ({ error, path }) => {
      if (shapeError(error).status >= 500) log.error({ err: error.cause ?? error, path }, 'trpc failed');
    },
  });
  return async (req, res, state) => {
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('Allow', 'GET, HEAD, POST');
      return sendCode(res, 'METHOD_NOT_ALLOWED', 'Use GET or POST', state);
    }
    return handler(req, res);
  };
}

function oauthDepsOf(orm: Orm, config: Config): OAuthDeps {
  return {
    em: () => orm.em.fork(),
    publicUrl: config.publicUrl,
    limits: {
      token: config.OAUTH_TOKEN_RATE_LIMIT,
      register: config.OAUTH_REGISTER_RATE_LIMIT,
      discovery: config.DISCOVERY_RATE_LIMIT,
    },
  };
}

/**
 * A request's procedure context from its state: the keyed write's transaction and credential when the
 * idempotency layer settled them, else a fresh EntityManager and the credential left to resolve.
 */
function contextFactory(
  orm: Orm,
  settings: Context['settings'],
  log: Logger,
  replicas?: ReplicaSet,
): CreateContext {
  return (req, state) => ({
    em: state.keyed?.em ?? orm.em.fork(),
    requestId: state.id,
    headers: req.headers,
    settings,
    log,
    actor: state.keyed?.credential,
    request: state,
    replicas,
  });
}

function sendOpenApi(res: ServerResponse, text: string) {
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.end(text);
}

/** The default checks, and the replicas' state when this process reads from any. */
function readinessOf(replicas: ReplicaSet | undefined): readonly ReadinessCheck[] {
  return replicas?.replicas.length ? [...DEFAULT_READINESS, replicaReadiness(replicas)] : DEFAULT_READINESS;
}

/** Every path the service answers, in the order they are tried. */
function router({ orm, config, log, requestLog, replicas, readiness = readinessOf(replicas) }: AppDeps): {
  route: Route;
  describe: DescribeOperation;
  probe: ProbeClient;
} {
  const settings = domainSettingsOf(config);
  const createContext = contextFactory(orm, settings, log, replicas);
  const openapi = buildOpenApiDocument(config.publicUrl);
  const openapiText = JSON.stringify(openapi);
  const routes = restRoutes(openapi);
  const describe = describeOperation(routes);
  requestLog?.describeWith(describe);
  const rest = createRestHandler({
    createContext,
    em: () => orm.em.fork(),
    poolSize: config.DB_POOL_SIZE,
    settings,
    publicUrl: config.publicUrl,
    log,
    routes,
  });
  const trpc = trpcTransport(createContext, log);
  const oauth = oauthDepsOf(orm, config);
  const mcp = { createContext, publicUrl: config.publicUrl, log, version: CONTRACT_VERSION };
  const exportFiles = new LocalFileStore(exportSettingsOf(config).dir);
  // Readiness reads on a connection of its own: a pool saturated by requests must not fail every probe.
  const probe = new ProbeClient(String(orm.config.get('clientUrl')), READY_BOUND_MS, 'stockless-readiness');

  const route: Route = async (req, res, state) => {
    const target = readTarget(req);
    if (!target) {
      const message = 'The request target is not a valid path';
      return sendCode(res, 'INVALID_REQUEST_TARGET', message, state);
    }
    state.target = target;
    const { path } = target;
    if (path.startsWith('/api/v1/') && answeredMethod(req, res, routes, path, state)) return;
    if (path === '/health') {
      const health = await checkHealth(orm);
      return sendJson(res, health.status, health.body);
    }
    if (path.startsWith('/health/')) {
      const operator = sameSecret(bearerToken(req.headers.authorization), config.OPERATOR_TOKEN);
      if (await serveHealthProbe(path, res, probe, readiness, operator)) return;
    }
    if (path === '/api/v1/openapi.json') return sendOpenApi(res, openapiText);
    if (path.startsWith('/trpc/')) return trpc(req, res, state);
    if (await handleOAuth(req, res, oauth, target)) return;
    const invoice = INVOICE_PATH.exec(path);
    if (invoice) {
      state.refusedInput = queryRefusal(routes, req.method, target);
      return serveInvoice(req, res, {
        ctx: createContext(req, state),
        publicUrl: config.publicUrl,
        rawId: invoice[1] ?? '',
      });
    }
    const exportFile = EXPORT_FILE_PATH.exec(path);
    if (exportFile) {
      return serveExportFile(req, res, {
        em: orm.em.fork(),
        files: exportFiles,
        state,
        rawId: exportFile[1] ?? '',
        query: new URLSearchParams(target.search),
      });
    }
    if (path.startsWith('/api/v1/')) return rest(req, res, state, target);
    if (path === MCP_PATH) return serveMcp(req, res, state, mcp);
    if (await serveDocs(req, res, path, config.publicUrl)) return;
    const message = `No route for ${path}`;
    return sendCode(res, 'ROUTE_NOT_FOUND', message, state);
  };
  return { route, describe, probe };
}

/**
 * A known REST path asked with a method it does not have: 405 with `Allow` (RFC 9110 §15.5.6), its
 * methods read from the contract; OPTIONS answers `Allow` alone. True when answered here; a path no
 * operation has is left to the REST adapter's 404.
 */
function answeredMethod(
  req: IncomingMessage,
  res: ServerResponse,
  routes: readonly RestRoute[],
  path: string,
  state: RequestState,
): boolean {
  const allowed = allowedMethods(routes, path);
  const method = req.method ?? 'GET';
  if (!allowed || (method !== 'OPTIONS' && allowed.includes(method))) return false;
  const allow = allowed.join(', ');
  res.setHeader('Allow', allow);
  if (method === 'OPTIONS') {
    res.statusCode = 204;
    res.end();
    return true;
  }
  const sent = state.sentMethod ?? method;
  sendCode(res, 'METHOD_NOT_ALLOWED', `${sent} is not allowed here; allowed: ${allow}`, state);
  return true;
}

export function createApp(deps: AppDeps): Server {
  const { log } = deps;
  const { route, describe, probe } = router(deps);
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 20_000 }, (incoming, res) => {
    const started = process.hrtime.bigint();
    const arrived = Date.now();
    const req = startRequest(incoming, deps.config.publicUrl);
    const { state } = req;
    if (deps.metrics) observeRequest(describe, res, state, started);
    const requestId = state.id;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    // HEAD is GET without a body: route it as GET; Node already knows to send no body.
    const method = state.sentMethod;
    if (method === 'HEAD') req.method = 'GET';
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = (req.url ?? '').split('?')[0];
      log.info(
        {
          request_id: requestId,
          method,
          path,
          status: res.statusCode,
          store_id: state.actor?.storeId,
          ms,
          ...traceFields(res),
        },
        'request',
      );
      recordRequest(deps.requestLog, req, res, state, { arrived, ms });
    });
    traceRequest(req, res, () => route(req, res, state)).catch((err: unknown) => {
      log.error({ err, request_id: requestId }, 'unhandled request failure');
      if (!res.headersSent) sendError(res, 500, INTERNAL_ERROR_BODY, state);
      else res.destroy();
    });
  });
  server.on('clientError', malformedRefusal(deps.config.publicUrl));
  server.on('close', () => void probe.close());
  return server;
}
