import type { Server } from 'node:http';
import type { Runner } from 'graphile-worker';
import { startWorker } from '../jobs/worker.ts';
import { setWebhookResolver } from '../src/webhooks/url-guard.ts';
import { createApp } from './app.ts';
import { type Config, merchantOf, webhookResolverOf, webhookSettingsOf } from './config.ts';
import { type ClusterPlace, type Database, startEmbeddedPostgres } from './database.ts';
import type { Logger } from './logger.ts';
import { migrateDirect, type Orm, openOrm } from './orm.ts';
import { resolveSecretKey } from './secret-key.ts';

export interface Runtime {
  config: Config;
  orm: Orm;
  databaseUrl: string;
  /** The embedded cluster, when DATABASE_URL is not set. */
  cluster?: ClusterPlace;
  server?: Server;
  worker?: Runner;
  url?: string;
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
  // Before anything checks a webhook URL: the API at create and update, the worker at every delivery.
  setWebhookResolver(webhookResolverOf(config));
  const db = await connectDatabase(config, log);
  const orm = await openOrm(db.url, config.DB_POOL_SIZE);
  // Session features (the migrations' advisory lock, Graphile's LISTEN and named statements) need
  // the server itself; requests go through DATABASE_URL, which may be a pooler.
  const directUrl = config.DATABASE_DIRECT_URL ?? db.url;
  await migrateDirect(orm, db.url, directUrl);
  await opts.beforeListen?.(orm);

  const worker = opts.work
    ? await startWorker({
        orm,
        connectionString: directUrl,
        concurrency: config.WORKER_CONCURRENCY,
        log,
        mail: { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, merchant: merchantOf(config) },
        webhooks: webhookSettingsOf(config),
      })
    : undefined;

  let server: Server | undefined;
  let url: string | undefined;
  if (opts.serve) {
    const app = createApp({ orm, config, log });
    server = app;
    await new Promise<void>((resolve, reject) => {
      app.once('error', reject);
      app.listen(config.PORT, config.HOST, () => resolve());
    });
    const address = app.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    url = `http://localhost:${port}`;
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (server) {
        // Stop accepting, let in-flight requests finish (up to the grace period), then cut the rest.
        const closed = new Promise<void>((resolve) => server?.close(() => resolve()));
        server.closeIdleConnections();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE).unref());
        await Promise.race([closed, grace]);
        server.closeAllConnections();
      }
      await worker?.stop();
      await orm.close(true);
      await db.stop();
    })();
    return stopping;
  };
  return { config, orm, databaseUrl: db.url, cluster: db.cluster, server, worker, url, stop };
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
