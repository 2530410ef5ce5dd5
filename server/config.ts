import { isIP } from 'node:net';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { ExportSettings, WebhookSettings } from '../src/settings.ts';
import type { DomainSettings } from '../src/trpc/context.ts';
import {
  type HostResolver,
  systemResolver,
  testHostsResolver,
} from '../src/webhooks/delivery/host-resolver.ts';
import { parseDuration } from './duration.ts';
import { tracingFields } from './tracing-config.ts';

function isValidCidr(value: string): boolean {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: `not a positive duration (e.g. 500ms, 10s, 5m): ${value}` });
        return z.NEVER;
      }
      return ms;
    });

/** A connection URL pg understands; anything else would fail later with a driver's stack trace. */
const postgresUrl = z
  .string()
  .refine(
    (v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v),
    'must be a postgres:// URL, e.g. postgres://user:password@localhost:5432/stockless',
  );

/** DATABASE_REPLICA_URLS: comma-separated postgres:// URLs, none by default. */
const replicaUrls = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const urls = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const [i, url] of urls.entries()) {
      // Named by its place, never printed: a password holding a comma or a slash defeats any masking.
      if (!postgresUrl.safeParse(url).success)
        ctx.addIssue({
          code: 'custom',
          message: `entry ${i + 1} of ${urls.length} is not a postgres:// URL (a comma or slash in a password must be percent-encoded)`,
        });
    }
    return urls as readonly string[];
  });

const configFields = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: postgresUrl.optional(),
  // Behind a pooler in transaction mode: the server itself, for migrations and the worker's queue.
  DATABASE_DIRECT_URL: postgresUrl.optional(),
  // Read replicas (hot standbys of DATABASE_URL's server): partner reads go there (docs/scaling.md §4).
  DATABASE_REPLICA_URLS: replicaUrls,
  // A replica further behind the primary than this serves no read until it catches up.
  REPLICA_MAX_LAG: duration('1s').refine((ms) => ms >= 10 && ms <= 600_000, {
    message: 'must be between 10ms and 10m (e.g. 1s)',
  }),
  DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // `pretty`: human-readable, colourised lines for development; `json`: one JSON object a line.
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  OPERATOR_TOKEN: z.string().min(24).optional(),
  // GET /metrics on a listener of its own (server/metrics/listener.ts); unset: no metrics at all.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  SECRET_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/i, 'SECRET_KEY must be 64 hex characters (32 bytes)')
    .optional(),
  // The contract documents the inventory limit's maximum as 500: a platform may lower it, never raise it.
  PAGE_SIZE_MAX: z.coerce.number().int().min(1).max(500).default(500),
  INVENTORY_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(600),
  EXTERNAL_ORDERS_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(120),
  APP_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(120),
  OAUTH_TOKEN_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(60),
  OAUTH_REGISTER_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(20),
  DISCOVERY_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(60),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  DB_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(10),
  // The statement budget of the API's pool (docs/decisions.md, "Statement budget"): no statement a
  // request runs may hold a database core longer. Between 10 ms and 60 s: a longer net protects nothing.
  API_STATEMENT_TIMEOUT: duration('2s').refine((ms) => ms >= 10 && ms <= 60_000, {
    message: 'must be between 10ms and 60s (e.g. 2s)',
  }),
  DEMO_PRODUCTS: z.coerce.number().int().min(0).max(1_000_000).default(3000),
  SHUTDOWN_GRACE: duration('10s'),
  // How long a finished request may wait in its process's buffer before the request log's batch is
  // written (src/request-log/recorder.ts); shutdown writes what is left whatever this is.
  REQUEST_LOG_FLUSH: duration('200ms').refine((ms) => ms >= 10 && ms <= 600_000, {
    message: 'must be between 10ms and 10m (e.g. 200ms)',
  }),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Stockless <invoices@stockless.example>'),
  MERCHANT_NAME: z.string().default('Stockless Pty Ltd'),
  // A placeholder until the company's real ABN is configured; it is printed on every tax invoice.
  MERCHANT_ABN: z
    .string()
    .regex(/^\d{2} ?\d{3} ?\d{3} ?\d{3}$/, 'MERCHANT_ABN must be 11 digits')
    .default('00 000 000 000'),
  MERCHANT_ADDRESS: z.string().default('Level 1, 1 Example Street, Sydney NSW 2000'),
  MERCHANT_EMAIL: z.string().default('invoices@stockless.example'),
  WEBHOOK_ALLOW_PRIVATE: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const list = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const cidr of list) {
        if (!isValidCidr(cidr))
          ctx.addIssue({ code: 'custom', message: `not a CIDR range (e.g. 127.0.0.1/32): ${cidr}` });
      }
      return list;
    }),
  // `hooks-1.test=127.0.0.1,hooks-2.test=::1`: webhook hosts answered without DNS (tests, the bench,
  // several processes on one machine). Names under .test only (RFC 6761), so no real partner's host
  // can be redirected; the answers still pass the public-address rule (see WEBHOOK_ALLOW_PRIVATE).
  WEBHOOK_TEST_HOSTS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const hosts = new Map<string, string[]>();
      for (const entry of value.split(',').map((s) => s.trim())) {
        if (!entry) continue;
        const [name = '', address = '', ...rest] = entry.split('=').map((s) => s.trim());
        const host = name.toLowerCase();
        if (rest.length > 0 || !/^([a-z0-9-]+\.)+test$/.test(host) || !isIP(address)) {
          ctx.addIssue({
            code: 'custom',
            message: `not a name under .test and an IP address (e.g. hooks-1.test=127.0.0.1): ${entry}`,
          });
          continue;
        }
        hosts.set(host, [...(hosts.get(host) ?? []), address]);
      }
      return hosts as ReadonlyMap<string, readonly string[]>;
    }),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('1m,5m,30m,2h,12h')
    .transform((value, ctx) => {
      const steps = value.split(',').map((s) => parseDuration(s));
      if (steps.some((ms) => ms === undefined || ms <= 0)) {
        ctx.addIssue({
          code: 'custom',
          message: `not a list of positive durations (e.g. 1m,5m,30m): ${value}`,
        });
        return z.NEVER;
      }
      return steps as number[];
    }),
  // Attempts wait on the network, not the CPU: a worker holds hundreds at once.
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(2000).default(256),
  WEBHOOK_COALESCE_WINDOW: duration('30s'),
  WEBHOOK_TIMEOUT: duration('10s'),
  // Bulk exports (src/exports/): the local file store's directory, default under DATA_DIR.
  EXPORT_DIR: z.string().min(1).optional(),
  EXPORT_URL_TTL: duration('1h').refine((ms) => ms >= 1000 && ms <= 7 * 86_400_000, {
    message: 'must be between 1s and 7d (e.g. 1h)',
  }),
  EXPORT_RETENTION: duration('7d').refine((ms) => ms >= 60_000 && ms <= 7 * 86_400_000, {
    message: 'must be between 1m and 7d (the documented maximum)',
  }),
  EXPORTS_PER_DAY: z.coerce.number().int().min(1).max(10_000).default(50),
  EXPORT_BATCH: z.coerce.number().int().min(1).max(50_000).default(2000),
  ...tracingFields,
});

const configSchema = configFields.superRefine((cfg, ctx) => {
  if (cfg.DATABASE_DIRECT_URL && !cfg.DATABASE_URL) {
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_DIRECT_URL'],
      message: 'DATABASE_DIRECT_URL goes with DATABASE_URL (the pooled URL); set both or neither',
    });
  }
  if (cfg.DATABASE_REPLICA_URLS.length > 0 && !cfg.DATABASE_URL) {
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_REPLICA_URLS'],
      message: "DATABASE_REPLICA_URLS are standbys of DATABASE_URL's server: set DATABASE_URL too",
    });
  }
  if (cfg.METRICS_PORT !== undefined && cfg.METRICS_PORT !== 0 && cfg.METRICS_PORT === cfg.PORT) {
    ctx.addIssue({
      code: 'custom',
      path: ['METRICS_PORT'],
      message: 'METRICS_PORT must differ from PORT: /metrics is never served on the partner port',
    });
  }
  // Refused rather than ignored: a test setting that reached production is a mistake to see at boot.
  if (cfg.NODE_ENV === 'production' && cfg.WEBHOOK_TEST_HOSTS.size > 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['WEBHOOK_TEST_HOSTS'],
      message: 'WEBHOOK_TEST_HOSTS is for tests and development; it is refused when NODE_ENV=production',
    });
  }
});

export type Config = z.output<typeof configSchema> & { publicUrl: string };

/** What the webhook engine needs from config (management checks URLs with the same rules). */
export function webhookSettingsOf(cfg: Config): WebhookSettings {
  if (!cfg.SECRET_KEY) throw new ConfigError('SECRET_KEY is not resolved (startRuntime resolves it)');
  return {
    secretKey: cfg.SECRET_KEY,
    allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE,
    retrySchedule: cfg.WEBHOOK_RETRY_SCHEDULE,
    coalesceWindowMs: cfg.WEBHOOK_COALESCE_WINDOW,
    timeoutMs: cfg.WEBHOOK_TIMEOUT,
    concurrency: cfg.WEBHOOK_CONCURRENCY,
  };
}

/** How this process resolves webhook hosts: DNS, with WEBHOOK_TEST_HOSTS answered first when given. */
export function webhookResolverOf(cfg: Config): HostResolver {
  return cfg.WEBHOOK_TEST_HOSTS.size > 0 ? testHostsResolver(cfg.WEBHOOK_TEST_HOSTS) : systemResolver;
}

/** What the export job, the download route and the export procedures need from config. */
export function exportSettingsOf(cfg: Config): ExportSettings {
  return {
    dir: cfg.EXPORT_DIR ?? join(cfg.DATA_DIR, 'exports'),
    urlTtlMs: cfg.EXPORT_URL_TTL,
    retentionMs: cfg.EXPORT_RETENTION,
    perDay: cfg.EXPORTS_PER_DAY,
    batch: cfg.EXPORT_BATCH,
  };
}

/** The settings procedures see (a subset of config; SECRET_KEY must be resolved). */
export function domainSettingsOf(cfg: Config): DomainSettings {
  return {
    publicUrl: cfg.publicUrl,
    pageSizeMax: cfg.PAGE_SIZE_MAX,
    operatorToken: cfg.OPERATOR_TOKEN,
    merchant: merchantOf(cfg),
    rateLimits: {
      inventory: cfg.INVENTORY_RATE_LIMIT,
      external_orders: cfg.EXTERNAL_ORDERS_RATE_LIMIT,
      app: cfg.APP_RATE_LIMIT,
    },
    webhooks: webhookSettingsOf(cfg),
    exports: exportSettingsOf(cfg),
  };
}

/** The merchant of record printed on tax invoices. */
export function merchantOf(cfg: Config) {
  return {
    name: cfg.MERCHANT_NAME,
    abn: cfg.MERCHANT_ABN,
    address: cfg.MERCHANT_ADDRESS,
    email: cfg.MERCHANT_EMAIL,
  };
}

export class ConfigError extends Error {}

/** Reads settings from the given environment; `.env` is loaded by the entry points, never here. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty value (`PORT=` in a .env file) means "not set", never 0 or "".
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = configSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const publicUrl = (cfg.PUBLIC_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
  return { ...cfg, publicUrl };
}
