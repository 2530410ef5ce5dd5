import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { createApp } from '../../server/app.ts';
import { loadConfig, merchantOf, webhookResolverOf } from '../../server/config.ts';
import { ensureDatabase } from '../../server/database.ts';
import { createLogger } from '../../server/logger.ts';
import { type Orm, openOrm } from '../../server/orm.ts';
import { apiStatementBudget, scopeRequests } from '../../server/runtime.ts';
import type { Actor } from '../../src/auth/actor.ts';
import { type RecorderOptions, RequestRecorder } from '../../src/request-log/recorder.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { Context, DomainSettings } from '../../src/trpc/context.ts';
import { setWebhookResolver } from '../../src/webhooks/delivery/url-guard.ts';
import { withDatabase } from './global-setup.ts';
import { getVia, requestTo } from './http.ts';

/** Mail settings for tests that run Graphile tasks in-process: no SMTP unless a test brings one. */
export const TEST_MAIL = {
  smtpUrl: undefined,
  from: 'Stockless <invoices@stockless.test>',
  merchant: merchantOf(loadConfig({})),
};

/** The default limits, for tests that build a Context by hand. */
export const TEST_RATE_LIMITS = { inventory: 600, external_orders: 120, app: 120 };

/** A fixed secrets-at-rest key for tests (the app and any worker process of a test share it). */
export const TEST_SECRET_KEY = 'a1'.repeat(32);

/** Webhook settings for in-process tests: loopback allowed, short intervals. */
export const TEST_WEBHOOKS = {
  allowPrivate: ['127.0.0.0/8', '::1/128'],
  retrySchedule: [1000, 1000, 1000, 1000, 1000],
  coalesceWindowMs: 1000,
  timeoutMs: 2000,
  concurrency: 10,
  secretKey: TEST_SECRET_KEY,
};

/** Settings as the HTTP app passes them to procedures. */
export function testSettings(operatorToken?: string): DomainSettings {
  return {
    publicUrl: 'http://stockless.test',
    pageSizeMax: 500,
    operatorToken,
    merchant: TEST_MAIL.merchant,
    rateLimits: TEST_RATE_LIMITS,
    webhooks: TEST_WEBHOOKS,
  };
}

/**
 * A tRPC Context as the HTTP app builds one per request, for in-process callers (internal
 * procedures, preset app actors): call it once per call.
 */
export function testContext(
  target: TestApp,
  o: { actor?: Actor; authorization?: string; operatorToken?: string; requestId?: string } = {},
): Context {
  return {
    em: target.orm.em.fork(),
    requestId: o.requestId ?? 'req_test',
    headers: o.authorization === undefined ? {} : { authorization: o.authorization },
    settings: testSettings(o.operatorToken),
    log: createLogger('silent'),
    actor: o.actor,
  };
}

export interface TestApp {
  url: string;
  databaseUrl: string;
  orm: Orm;
  em(): EntityManager;
  /** Sends a request; `key` becomes the bearer credential. */
  request(
    path: string,
    init?: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** GET and parse JSON, asserting nothing; `T` is the body the test expects. */
  get<T = unknown>(path: string, key?: string): Promise<{ status: number; body: T; headers: Headers }>;
  createStore(name?: string): Promise<{ id: number; readWrite: string; read: string }>;
  /** The request log's writer, when `requestLog` was asked for: `flush()` before reading the log. */
  requestLog?: RequestRecorder;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** The app's logger (silent when absent), for a test that reads what the app logs. */
  log?: Logger;
  /**
   * Record the request log (off by default, so no other test's statements or timing see its batches):
   * the recorder's options; `{}` for the defaults.
   */
  requestLog?: Omit<RecorderOptions, 'em' | 'log'>;
  /** Count and time requests for /metrics (server/metrics/http-metrics.ts), as with METRICS_PORT set. */
  metrics?: boolean;
}

/**
 * A fresh database cloned from the migrated template, and the real HTTP app on an ephemeral port.
 * With `API_STATEMENT_TIMEOUT` in `env` the app gets a pool of its own under that statement budget, as
 * `startRuntime` gives the API; `orm` (the fixtures') stays unbudgeted, as the worker's and the CLI's.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  opts: TestAppOptions = {},
): Promise<TestApp> {
  const adminUrl = inject('pgAdminUrl');
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  await ensureDatabase(adminUrl, name, inject('templateDb'));
  const databaseUrl = withDatabase(adminUrl, name);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: 'http://stockless.test',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    SECRET_KEY: TEST_SECRET_KEY,
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8,::1/128',
    ...env,
  });
  // As startRuntime does: the URL checks of this process's API answer WEBHOOK_TEST_HOSTS names.
  const testHosts = config.WEBHOOK_TEST_HOSTS.size > 0;
  if (testHosts) setWebhookResolver(webhookResolverOf(config));
  const orm = await openOrm(databaseUrl, 6);
  const log = opts.log ?? createLogger(process.env.TEST_APP_LOG ?? 'silent');
  const budgeted = env.API_STATEMENT_TIMEOUT !== undefined;
  const apiOrm = budgeted ? await openOrm(databaseUrl, 6, apiStatementBudget(config, log)) : orm;
  const requestLog = opts.requestLog
    ? new RequestRecorder({ ...opts.requestLog, em: () => apiOrm.em.fork(), log })
    : undefined;
  const server: Server = createApp({ orm: apiOrm, config, log, requestLog, metrics: opts.metrics });
  if (budgeted) scopeRequests(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const request = requestTo(url);

  return {
    url,
    databaseUrl,
    orm,
    em: () => orm.em.fork(),
    request,
    get: getVia(request),
    requestLog,
    async createStore(storeName = 'Test Store') {
      const em = orm.em.fork();
      const store = await createStore({ em }, { name: storeName, slug: `s-${randomUUID().slice(0, 8)}` });
      const rw = await createApiKey({ em }, { storeId: store.id, scope: 'read_write', mode: 'live' });
      const ro = await createApiKey({ em }, { storeId: store.id, scope: 'read', mode: 'live' });
      return { id: store.id, readWrite: rw.key, read: ro.key };
    },
    async close() {
      if (testHosts) setWebhookResolver();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await requestLog?.close();
      if (apiOrm !== orm) await apiOrm.close(true);
      await orm.close(true);
    },
  };
}
