import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import type { Runner } from 'graphile-worker';
import { startWorker } from '../jobs/worker.ts';
import { RequestRecorder } from '../src/request-log/recorder.ts';
import { setWebhookResolver } from '../src/webhooks/delivery/url-guard.ts';
import { createApp } from './app.ts';
import { type Config, exportSettingsOf, merchantOf, webhookResolverOf, webhookSettingsOf } from './config.ts';
import { type ClusterPlace, type Database, startEmbeddedPostgres } from './database.ts';
import type { Logger } from './logger.ts';
import { statementBudgetHits } from './metrics/http-metrics.ts';
import type { MetricsListener } from './metrics/listener.ts';
import { startMetrics } from './metrics/start.ts';
import { migrateDirect, type Orm, openOrm, type StatementBudget } from './orm.ts';
import { observeReplicas } from './replicas/observe.ts';
import { openReplicas } from './replicas/open.ts';
import type { ReplicaSet } from './replicas/replica-set.ts';
import { resolveSecretKey } from './secret-key.ts';
import { startTracing, type Tracing } from './tracing.ts';

export interface Runtime {
  config: Config;
  /** The worker's, the migrations' and the seed's ORM: no statement budget. */
  orm: Orm;
  /** The API's ORM, when this process serves: its pool runs under the statement budget. */
  apiOrm?: Orm;
  /** The API's read replicas (DATABASE_REPLICA_URLS), when this process serves and has any. */
  replicas?: ReplicaSet;
  databaseUrl: string;
  /** The embedded cluster, when DATABASE_URL is not set. */
  cluster?: ClusterPlace;
  server?: Server;
  worker?: Runner;
  /** The request log's writer, when this process serves. */
  requestLog?: RequestRecorder;
  url?: string;
  /** Where GET /metrics answers, when METRICS_PORT is set (http://host:port, no path). */
  metricsUrl?: string;
  stop(): Promise<void>;
}

export interface RuntimeOptions {
  serve: boolean;
  work: boolean;
  /** Called once the database is migrated, before the server listens (demo seeding). */
  beforeListen?: (orm: Orm) => Promise<void>;
}

/** The database this process should use: DATABASE_URL, or an embedded server under DATA_DIR. */
export async function connectDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, stop: async () => {} };
  log.info({ dataDir: config.DATA_DIR }, 'starting embedded PostgreSQL');
  const db = await startEmbeddedPostgres({
    dataDir: config.DATA_DIR,
    port: config.EMBEDDED_PG_PORT,
    onLog: (line) => log.debug({ component: 'postgres' }, line),
  });
  if (db.cluster?.relocated) {
    log.info(
      { cluster: db.cluster.dir },
      'user postgres (which runs PostgreSQL for root) cannot reach DATA_DIR: the cluster is kept where it can, DATA_DIR/pg links to it',
    );
  }
  return db;
}

export async function startRuntime(given: Config, log: Logger, opts: RuntimeOptions): Promise<Runtime> {
  const config: Config = { ...given, SECRET_KEY: await resolveSecretKey(given) };
  // First: the pools opened below trace their statements only if tracing is on when they open.
  const tracing = startTracing(config, log);
  // Before anything checks a webhook URL: the API at create and update, the worker at every delivery.
  setWebhookResolver(webhookResolverOf(config));
  // A busy port is found before PostgreSQL starts, not seconds later (listen below still decides).
  if (opts.serve && config.PORT !== 0) await probePort(config.PORT, config.HOST);
  const db = await connectDatabase(config, log);
  // Two pools when this process serves: the API's runs under the statement budget, and this one (the
  // worker's jobs, the migrations, the demo seed) keeps the server's own statement_timeout. A process
  // that only serves uses this one at start only; its connections close when idle (pool.idleTimeoutMillis).
  const orm = await openOrm(db.url, config.DB_POOL_SIZE);
  // Session features (the migrations' advisory lock, Graphile's LISTEN and named statements) need
  // the server itself; requests go through DATABASE_URL, which may be a pooler.
  const directUrl = config.DATABASE_DIRECT_URL ?? db.url;
  await migrateDirect(orm, db.url, directUrl);
  await opts.beforeListen?.(orm);
  const apiOrm = opts.serve
    ? await openOrm(db.url, config.DB_POOL_SIZE, apiStatementBudget(config, log, directUrl !== db.url))
    : undefined;
  if (apiOrm) await checkStatementBudget(apiOrm, config, log);
  // A standby is reached directly, never through a pooler: the budget goes as startup parameters.
  const replicas = apiOrm
    ? await openReplicas(config, apiOrm, apiStatementBudget(config, log), log)
    : undefined;

  const worker = opts.work
    ? await startWorker({
        orm,
        connectionString: directUrl,
        concurrency: config.WORKER_CONCURRENCY,
        log,
        mail: { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, merchant: merchantOf(config) },
        webhooks: webhookSettingsOf(config),
        exports: exportSettingsOf(config),
      })
    : undefined;

  const metrics = await startMetrics(config, log, { orm, apiOrm, work: opts.work });
  if (metrics) observeReplicas(replicas);
  let server: Server | undefined;
  let url: string | undefined;
  // The request log's writer: batches from this process's requests, written through the API's pool.
  const requestLog = apiOrm
    ? new RequestRecorder({ em: () => apiOrm.em.fork(), log, flushMs: config.REQUEST_LOG_FLUSH })
    : undefined;
  const parts = { metrics, requestLog, worker, replicas, apiOrm, orm, db, tracing };
  if (apiOrm) {
    const app = createApp({ orm: apiOrm, config, log, requestLog, replicas, metrics: metrics !== undefined });
    scopeRequests(app);
    server = app;
    await listen(app, config.PORT, config.HOST).catch(async (err: unknown) => {
      // Nothing of this start may outlive it: the worker, the pools, the embedded cluster, the tracer.
      await stopper(config, parts)();
      throw err;
    });
    const address = app.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    url = `http://localhost:${port}`;
  }

  const stop = stopper(config, { ...parts, server });
  return {
    config,
    orm,
    apiOrm,
    replicas,
    databaseUrl: db.url,
    cluster: db.cluster,
    server,
    worker,
    requestLog,
    url,
    metricsUrl: metrics?.url,
    stop,
  };
}

/**
 * Shutdown, once however often asked: stop accepting, let in-flight requests finish (up to the grace
 * period), then cut the rest; write what the request log holds; then the worker, the pools, the cluster.
 */
function stopper(
  config: Config,
  p: {
    server?: Server;
    metrics?: MetricsListener;
    requestLog?: RequestRecorder;
    worker?: Runner;
    replicas?: ReplicaSet;
    apiOrm?: Orm;
    orm: Orm;
    db: Database;
    tracing?: Tracing;
  },
): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      const { server } = p;
      if (server) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE).unref());
        await Promise.race([closed, grace]);
        server.closeAllConnections();
      }
      await p.metrics?.close();
      await p.requestLog?.close();
      await p.worker?.stop();
      await p.replicas?.close();
      await p.apiOrm?.close(true);
      await p.orm.close(true);
      await p.db.stop();
      // Last: the spans of everything above are exported before the process ends.
      await p.tracing?.shutdown();
    })();
    return stopping;
  };
}

function listen(server: NetServer, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

/** Fails as `listen` would when the port cannot be taken, and leaves it free when it can. */
async function probePort(port: number, host: string): Promise<void> {
  const probe = createServer();
  await listen(probe, port, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** The HTTP request a statement runs for, as the API's server met it (see `scopeRequests`). */
const requests = new AsyncLocalStorage<{ req: IncomingMessage; res: ServerResponse }>();

/**
 * Runs each request the server answers inside its own scope, so that the statement budget's log line
 * can name the request a cancelled statement belonged to (its id, path and query).
 */
export function scopeRequests(server: Server): void {
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) =>
    requests.run({ req, res }, () => {
      for (const listener of listeners) listener.call(server, req, res);
    }),
  );
}

/** Query parameters whose values are never logged. */
const SECRET_PARAM = /token|secret|password|^code$/i;
/** At most this many parameters, each value this long, in one log line: a query string is the client's. */
const LOGGED_PARAMS = 30;
const LOGGED_VALUE = 200;

/** A request's path and query parameters, for the log. */
function requestFields(req: IncomingMessage, res: ServerResponse) {
  const url = URL.parse(req.url ?? '/', 'http://api.invalid') ?? new URL('http://api.invalid/?');
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of [...url.searchParams].slice(0, LOGGED_PARAMS)) {
    const shown = SECRET_PARAM.test(name) ? '[redacted]' : value.slice(0, LOGGED_VALUE);
    const seen = query[name];
    query[name] = seen === undefined ? shown : [...(Array.isArray(seen) ? seen : [seen]), shown];
  }
  return { request_id: res.getHeader('X-Request-Id'), method: req.method, path: url.pathname, query };
}

/**
 * The API pool's statement budget: API_STATEMENT_TIMEOUT on every connection, no parallel query,
 * and a warning for each cancelled statement, with the request it ran for. Behind a pooler in
 * transaction mode (`pooled`) the settings are not sent (PgBouncer refuses startup parameters it does
 * not track, or ignores them when told to): the API's role carries them there (`ALTER ROLE <role> SET
 * statement_timeout = '2s'`, `SET max_parallel_workers_per_gather = 0`), and `checkStatementBudget`
 * says when the first is missing.
 */
export function apiStatementBudget(config: Config, log: Logger, pooled = false): StatementBudget {
  const budgetMs = config.API_STATEMENT_TIMEOUT;
  return {
    timeoutMs: pooled ? undefined : budgetMs,
    serial: !pooled,
    onCancelled: ({ error, sql, ms }) => {
      const timedOut = /statement timeout/.test(error.message);
      statementBudgetHits.inc({ reason: timedOut ? 'timeout' : 'cancelled' });
      const scope = requests.getStore();
      log.warn(
        {
          ...(scope ? requestFields(scope.req, scope.res) : {}),
          budget_ms: budgetMs,
          ms: Math.round(ms),
          statement: sql.replace(/\s+/g, ' ').trim().slice(0, 500),
          pg_message: error.message,
          ...(typeof error.where === 'string' ? { pg_where: error.where } : {}),
        },
        // 57014 is also an operator's pg_cancel_backend: said apart, as the partner's answer is the same.
        timedOut
          ? 'statement budget exceeded: the statement was cancelled'
          : 'statement cancelled by the server before it finished',
      );
    },
  };
}

/**
 * Warns at start when the API's statements are not held to the budget: the server reports a larger
 * statement_timeout (or none) on the API's own connection. Behind a pooler that is the case until the
 * role has it: `ALTER ROLE <api role> SET statement_timeout = '2s'`.
 */
export async function checkStatementBudget(apiOrm: Orm, config: Config, log: Logger): Promise<void> {
  const [row] = await apiOrm.em
    .fork()
    .getConnection()
    .execute<{ ms: number }[]>(
      `SELECT setting::integer AS ms FROM pg_settings WHERE name = 'statement_timeout'`,
    );
  const ms = row?.ms ?? 0;
  if (ms > 0 && ms <= config.API_STATEMENT_TIMEOUT) return;
  log.warn(
    { budget_ms: config.API_STATEMENT_TIMEOUT, statement_timeout_ms: ms },
    'the API statement budget is not in force: its connections have a longer statement_timeout, or none ' +
      "(behind a pooler, on the API's own role, ALTER ROLE <api role> SET statement_timeout = '2s', or on a " +
      "PgBouncer entry of its own, connect_query='SET statement_timeout = 2000': docs/scaling.md, section 3)",
  );
}

/** SIGTERM/SIGINT: drain and exit; a second signal exits at once. */
export function handleSignals(runtime: Runtime, log: Logger): void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) process.exit(1);
    received = true;
    log.info({ signal }, 'shutting down');
    runtime.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', onSignal);
}
