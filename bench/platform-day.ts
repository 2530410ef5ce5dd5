import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { Agent, request } from 'undici';
import { type Config, domainSettingsOf, loadConfig } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import { type Orm, openOrm } from '../server/orm.ts';
import { apiResource } from '../src/auth/resources.ts';
import { type RawBuilder, rows, sql } from '../src/db/sql.ts';
import { recordEvents } from '../src/events/outbox.ts';
import { EVENT_NAMES } from '../src/events/vocabulary/index.ts';
import { createOwnGoods } from '../src/listings/create-own-goods.ts';
import { pendingRequest, startAuthorization } from '../src/oauth/authorization-request.ts';
import { registerClient } from '../src/oauth/clients.ts';
import { approve } from '../src/oauth/grant-decision.ts';
import { pkceChallenge } from '../src/oauth/random.ts';
import { createSession, findSession } from '../src/oauth/sessions.ts';
import { exchangeCode } from '../src/oauth/tokens.ts';
import { createUser } from '../src/oauth/users.ts';
import { createStore } from '../src/store/create-store.ts';
import { createWebhook } from '../src/webhooks/create-webhook.ts';
import { testHostsResolver } from '../src/webhooks/delivery/host-resolver.ts';
import { setWebhookResolver } from '../src/webhooks/delivery/url-guard.ts';
import { machineBusyMs, printTable, quantile, round, seeded } from './lib.ts';
import {
  CLASSES,
  type ClassName,
  type DayState,
  dayCalls,
  LONG_POLL,
  READ_CLASSES,
  TOTAL_WEIGHT,
  WEIGHTS,
} from './platform-day-calls.ts';
import { priceAgainstRaw, type RawPricing, type SideFigures } from './platform-day-raw.ts';
import { BENCH_SECRET_KEY, receiverCertificate, spawnBenchWorker, until } from './webhook-harness.ts';

/** Each class's upper bound on a roll of 0 to TOTAL_WEIGHT. */
const BOUNDS = CLASSES.map((_, i) => CLASSES.slice(0, i + 1).reduce((n, c) => n + WEIGHTS[c], 0));
const TARGETS = { rps: 300, p99: 100, errors: 0 };
/** Resolved to the local receiver by the worker (WEBHOOK_TEST_HOSTS) and by this process, as DNS would. */
const HOOK_HOST = 'hooks-pday.test';
const REDIRECT = 'http://127.0.0.1:8765/callback';
const log = createLogger('silent');
const writeHeaders = () => ({ 'content-type': 'application/json', 'idempotency-key': randomUUID() });

type Page = { next_cursor: string; has_more: boolean };
type Settings = ReturnType<typeof domainSettingsOf>;
export type ClassFigures = Record<'count' | 'p50' | 'p99' | 'max' | 'errors' | 'rate_limited', number>;
export type PlatformDayResult = Awaited<ReturnType<typeof benchPlatformDay>>;
interface ClassAlone {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rate_limited: number;
  /** Machine CPU (API, PostgreSQL, worker, this client) per answered request, ms. */
  cpu_ms?: number;
}
const cpus = availableParallelism();

/**
 * The mix's CPU a request with each class at `cost` (classes without one left out, the others'
 * weights rescaled), and the rate the whole machine could serve the mix at with every core busy.
 */
function mixCost(cost: (c: ClassName) => number | undefined) {
  const costed = CLASSES.filter((c) => cost(c) !== undefined);
  const weighted = (c: ClassName) => (WEIGHTS[c] / TOTAL_WEIGHT) * (cost(c) ?? 0);
  const weightOf = costed.reduce((n, c) => n + WEIGHTS[c] / TOTAL_WEIGHT, 0);
  const perRequest = costed.reduce((n, c) => n + weighted(c), 0) / (weightOf || 1);
  /** A class's part of that CPU. */
  const share = (c: ClassName) => round(weighted(c) / weightOf / (perRequest || 1));
  const mix = {
    cpu_ms_per_mix_request: round(perRequest),
    cpu_bound_rps: perRequest ? round((cpus * 1000) / perRequest) : undefined,
  };
  return { costed, share, mix };
}

/**
 * Where the mix's machine time goes: each class's CPU per request weighted by its share of the mix.
 * The long poll waits rather than works and is never priced alone, so its share is left out.
 */
function aloneProfile(alone: Partial<Record<ClassName, ClassAlone>>) {
  const { costed, share, mix } = mixCost((c) => alone[c]?.cpu_ms);
  const classes = Object.fromEntries(costed.map((c) => [c, { ...alone[c], mix_share: share(c) }]));
  return { classes, ...mix, cores: cpus };
}

/** What the raw side needs: the bench's ORM and config to record statements, a port for the replay. */
interface RawSide {
  orm: Orm;
  config: Config;
  node: string;
  databaseUrl: string;
  rawPort: number;
  seconds: number;
  /** Paths sampled per class (seeded apart from the day's own streams). */
  paths: number;
}

async function againstRaw(raw: RawSide, state: DayState, key: string, apiUrl: string, connections: number) {
  const calls = dayCalls(state, seeded(55_000), 0);
  const sampled = Object.fromEntries(
    READ_CLASSES.map((c) => [c, Array.from({ length: raw.paths }, () => calls[c]()[0])]),
  );
  return priceAgainstRaw({ ...raw, key, apiUrl, connections, sampled });
}

/**
 * The mix's CPU a request if each read class cost what its raw replay costs (the writes at the API's
 * own price alone: a write is not replayed), and the rate that gives with every core busy: the
 * ceiling of the SQL we send, before any of our own layers.
 */
function rawProfile(
  alone: Partial<Record<ClassName, ClassAlone>>,
  priced: Partial<Record<ClassName, RawPricing>>,
) {
  return { classes: priced, ...mixCost((c) => priced[c]?.raw.cpu_ms ?? alone[c]?.cpu_ms).mix };
}

/**
 * A mixed platform day against a running API: `connections` loops for `seconds`, each drawing its next
 * request by issue 27's weights from its own seeded stream, while a worker process delivers the order
 * webhooks to a local receiver. `requests` and `rps` count every class, `p50`/`p99` all but the long
 * poll; 429s are counted apart and not timed; `errors` are 5xx, any other non-2xx, or no answer.
 */
export async function benchPlatformDay(opts: {
  databaseUrl: string;
  apiUrl: string;
  readKey?: string;
  writeKey: string;
  storeId: number;
  connections?: number;
  seconds?: number;
  /** Each class then runs alone for this long, to price it in machine CPU (0: not). */
  aloneSeconds?: number;
  /** Then the read classes against the raw replay of their own statements (bench/platform-day-raw.ts). */
  raw?: RawSide;
  /** API processes the connections share, connection i on the (i mod n)th (default: `apiUrl` alone). */
  apiUrls?: string[];
  /** The worker's connection settings over the defaults (DATABASE_URL, DATABASE_DIRECT_URL: bench/pooler.ts). */
  workerEnv?: Record<string, string>;
}) {
  const { connections = 10, seconds = 60, aloneSeconds = 0, writeKey, readKey = writeKey, storeId } = opts;
  const live = (key: string) => !key.startsWith('sl_test_');
  const { key, cert, caFile } = await receiverCertificate([HOOK_HOST]);
  let delivered = 0;
  // https: a subscription takes nothing else.
  const receiver = createServer({ key, cert }, (req, res) => {
    req.resume().on('end', () => res.writeHead(200).end(() => delivered++));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `https://${HOOK_HOST}:${(receiver.address() as AddressInfo).port}`;
  // Started first, so it warms up while the rest is prepared.
  const worker = spawnBenchWorker(opts.databaseUrl, caFile, {
    WEBHOOK_TEST_HOSTS: `${HOOK_HOST}=127.0.0.1`,
    ...opts.workerEnv,
  });
  const orm = await openOrm(opts.databaseUrl, 2);
  const em = () => orm.em.fork();
  const agent = new Agent({ connections, keepAliveTimeout: 30_000 });
  const subscriptions: number[] = [];
  const config = loadConfig({ SECRET_KEY: BENCH_SECRET_KEY, WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  const settings = domainSettingsOf(config);
  const get = async <T>(path: string): Promise<T> => {
    const res = await request(`${opts.apiUrl}${path}`, { headers: { authorization: `Bearer ${readKey}` } });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`platform day: ${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text) as T;
  };
  try {
    const brands = await rows<{ name: string; slug: string }>(em(), sql`SELECT name, slug FROM brands`);
    const ids = async (q: RawBuilder<{ id: number }>) => (await rows(em(), q)).map((r) => r.id);
    const products = await ids(sql`SELECT id FROM products
      WHERE active AND owner_store_id IS NULL ORDER BY hashint4(id) LIMIT 5000`);
    const orderIds = await ids(sql`SELECT id FROM orders
      WHERE store_id = ${storeId} AND livemode = ${live(readKey)} ORDER BY id DESC LIMIT 5000`);
    // Distinct products, taken in turn: no two orders at once queue on one variant's lock.
    const buyable = await rows<{ product_id: number; variant_id: number }>(
      em(),
      sql`SELECT DISTINCT ON (p.id) p.id AS product_id, v.id AS variant_id FROM listings l
        JOIN products p ON p.id = l.product_id JOIN product_variants v ON v.product_id = p.id
        WHERE l.store_id = ${storeId} AND l.deleted_at IS NULL AND p.active AND p.owner_store_id IS NULL
          AND p.purchase_mode = 'buy_now' AND p.image_url IS NOT NULL AND v.retired_at IS NULL
          AND v.stock_quantity > 0 ORDER BY p.id, v.id LIMIT 2000`,
    );
    if (buyable.length === 0) throw new Error('platform day: the store lists nothing to buy');
    // A test order takes no stock; live ones would empty a small store's pool within the run.
    const stocked = buyable.map((b) => b.variant_id);
    if (live(writeKey))
      await rows(em(), sql`UPDATE product_variants SET stock_quantity = 1e9 WHERE id = ANY(${stocked})`);
    // Marketplace posts are for a store's own goods, and own goods change how that store's catalogue
    // reads (ownership, scope): they go to a store of their own, never the measured one.
    const issuer = (await get<{ issuer: string }>('/.well-known/oauth-authorization-server')).issuer;
    const market = await marketplace(orm, settings, issuer, connections);
    setWebhookResolver(testHostsResolver(new Map([[HOOK_HOST, ['127.0.0.1']]])));
    // A run that died left its subscriptions behind, and a store may have ten.
    await rows(em(), sql`DELETE FROM webhook_subscriptions WHERE url LIKE ${`https://${HOOK_HOST}:%`}`);
    // site.published only for the warm-up below.
    const events = [...EVENT_NAMES.filter((e) => e.startsWith('order.')), 'site.published'];
    for (const [id, livemode] of [[storeId, live(writeKey)] as const, [market.id, true] as const]) {
      const who = { storeId: id, livemode, kind: 'api_key', scope: 'read_write', credentialId: 0 } as const;
      const actor = { ...who, appScopes: new Set<never>(), canReadCustomers: true };
      const url = `${hookUrl}/${id}`;
      const made = await createWebhook({ em: em(), settings, log, actor }, { url, events });
      subscriptions.push(made.webhook.id);
    }
    // The worker is up and delivering before the clock starts.
    const ping = { storeId: market.id, event: 'site.published' as const, entityId: market.id, data: {} };
    await em().transactional((tx) => recordEvents(tx, [ping]));
    await until(() => delivered > 0, 120_000, 'the warm-up delivery');
    // A partner follows on from where it is, not from the start: both cursors' heads, read untimed.
    let feedHead = '';
    for (let more = true; more; ) {
      const since = feedHead && `&updated_since=${encodeURIComponent(feedHead)}`;
      const page = await get<Page>(`/api/v1/inventory?limit=500${since}`);
      [feedHead, more] = [page.next_cursor, page.has_more];
    }
    const eventsHead = (await get<Page>('/api/v1/events?order=desc&limit=1')).next_cursor;
    const runId = Date.now().toString(36);
    const state: DayState = {
      ...{ brands, products, orderIds, buyable, market, writeKey, runId },
      ...{ feed: feedHead, eventCursor: eventsHead, bought: 0, posted: 0 },
    };
    /** `secs` of the loop at `connections`, every class by its weight, or `only` one. */
    const run = async (secs: number, only?: ClassName) => {
      // Every allowance whole at the start of each run: the heads' walk and earlier runs spent some.
      await rows(em(), sql`DELETE FROM rate_limits`);
      const seen = CLASSES.map(() => ({ ms: [] as number[], count: 0, errors: 0, rate_limited: 0 }));
      const errorSamples = new Set<string>();
      const deliveredBefore = delivered;
      const busyBefore = await machineBusyMs();
      const started = performance.now();
      const end = started + secs * 1000;
      const connection = async (index: number) => {
        const rnd = seeded(27_000 + index);
        const calls = dayCalls(state, rnd, index);
        const apiUrl = opts.apiUrls?.[index % opts.apiUrls.length] ?? opts.apiUrl;
        while (performance.now() < end) {
          const roll = rnd() * TOTAL_WEIGHT;
          const c = only ? CLASSES.indexOf(only) : BOUNDS.findIndex((b) => roll < b);
          const cls = CLASSES[c] as ClassName;
          const [path, credential = readKey, body] = calls[cls]();
          const headers = { authorization: `Bearer ${credential}`, ...(body && writeHeaders()) };
          const s = seen[c] as (typeof seen)[number];
          s.count++;
          const at = performance.now();
          try {
            const url = `${apiUrl}/api/v1${path}`;
            const [method, payload] = body ? ['POST', JSON.stringify(body)] : ['GET', undefined];
            const res = await request(url, { method, headers, body: payload, dispatcher: agent });
            const text = await res.body.text();
            if (res.statusCode === 429) {
              s.rate_limited++;
              continue;
            }
            s.ms.push(performance.now() - at);
            if (res.statusCode >= 300) {
              s.errors++;
              errorSamples.add(`${cls} ${res.statusCode} ${text.slice(0, 160)}`);
              continue;
            }
            const page = JSON.parse(text);
            if (cls === 'inventory') state.feed = page.next_cursor;
            if (cls === 'events') state.eventCursor = page.next_cursor;
            if (cls === 'wholesale' && live(writeKey) === live(readKey)) state.orderIds.push(page.order.id);
          } catch (err) {
            s.errors++;
            errorSamples.add(`${cls}: ${(err as Error).message}`);
          }
        }
      };
      await Promise.all(Array.from({ length: connections }, (_, i) => connection(i)));
      const elapsed = (performance.now() - started) / 1000;
      const pct = (xs: number[], q: number) => round(quantile(xs, q));
      const stats = (ms: number[]) => ({ p50: pct(ms, 0.5), p99: pct(ms, 0.99), max: pct(ms, 1) });
      const figures = seen.map(({ ms, ...n }) => ({ ...n, ...stats(ms) }));
      const sum = (f: keyof ClassFigures) => figures.reduce((n, x) => n + x[f], 0);
      const timed = seen.filter((_, i) => CLASSES[i] !== LONG_POLL).flatMap((s) => s.ms);
      const [rps, p99, errors] = [round(sum('count') / elapsed), pct(timed, 0.99), sum('errors')];
      const busy = busyBefore === undefined ? undefined : ((await machineBusyMs()) ?? 0) - busyBefore;
      // Machine CPU per answered request (429s cost little and are not answers): what the class costs the mix.
      const answered = sum('count') - sum('rate_limited');
      const cpu_ms = busy === undefined || answered === 0 ? undefined : round(busy / answered);
      return {
        ...{ connections, seconds: secs, requests: sum('count'), rps, p50: pct(timed, 0.5), p99, errors },
        ...{
          cpu_ms_per_request: cpu_ms,
          cpu_busy_share: busy === undefined ? undefined : round(busy / (elapsed * 1000 * cpus)),
        },
        ...{ rate_limited: sum('rate_limited'), error_samples: [...errorSamples].slice(0, 8) },
        classes: Object.fromEntries(CLASSES.map((c, i) => [c, figures[i]])) as Record<
          ClassName,
          ClassFigures
        >,
        webhook_deliveries: delivered - deliveredBefore,
        targets: {
          rps: { target: TARGETS.rps, value: rps, met: rps >= TARGETS.rps },
          p99: { target: TARGETS.p99, value: p99, met: p99 <= TARGETS.p99 },
          errors: { target: TARGETS.errors, value: errors, met: errors <= TARGETS.errors },
        },
      };
    };
    const day = await run(seconds);
    const alone: Partial<Record<ClassName, ClassAlone>> = {};
    for (const c of aloneSeconds ? CLASSES.filter((x) => x !== LONG_POLL) : []) {
      const r = await run(aloneSeconds, c);
      const f = r.classes[c];
      alone[c] = {
        rps: r.rps,
        p50: f.p50,
        p99: f.p99,
        errors: f.errors,
        rate_limited: f.rate_limited,
        cpu_ms: r.cpu_ms_per_request,
      };
    }
    const raw = opts.raw && (await againstRaw(opts.raw, state, readKey, opts.apiUrl, connections));
    return { ...day, alone: aloneProfile(alone), raw: raw && rawProfile(alone, raw) };
  } finally {
    // The worker stops first: its subscriptions go once nothing is delivering to them.
    worker.kill('SIGTERM');
    if (worker.exitCode === null) await once(worker, 'exit');
    await rows(em(), sql`DELETE FROM webhook_subscriptions WHERE id = ANY(${subscriptions}::integer[])`);
    await agent.close();
    await new Promise((r) => receiver.close(r));
    await orm.close(true);
  }
}

/**
 * The marketplace store (made once), its own goods stocked beyond any run, and an app token per
 * connection, as one app taking 5% of the load would be over its per-app and per-credential limits.
 * Genuine tokens, by the authorization server's own steps in process: register, authorize with PKCE,
 * a store user's session approves, code exchange.
 */
async function marketplace(orm: Orm, settings: Settings, issuer: string, apps: number) {
  const em = () => orm.em.fork();
  const slug = 'bench-pday-market';
  const [found] = await rows<{ id: number }>(em(), sql`SELECT id FROM stores WHERE slug = ${slug}`);
  const storeId = found?.id ?? (await createStore({ em: em() }, { name: 'Bench marketplace', slug })).id;
  const skus = Array.from({ length: 20 }, (_, i) => `PDAY-${storeId}-${i}`);
  const have = await rows<{ sku: string }>(em(), sql`SELECT sku FROM products WHERE sku = ANY(${skus})`);
  for (const sku of skus.filter((s) => !have.some((h) => h.sku === s))) {
    const goods = { storeId, sku, name: `Handmade ${sku}`, priceCents: 4500, stock: 1e9 };
    await createOwnGoods({ em: em(), settings, log }, goods);
  }
  const password = randomBytes(18).toString('base64url');
  const user = await createUser(em(), { storeId, email: `pday-${randomUUID()}@bench.test`, password });
  const session = await findSession(em(), await createSession(em(), user.id));
  if (!session) throw new Error('platform day: no consent session');
  const resource = apiResource(issuer);
  const scope = 'write_external_orders';
  const tokens: string[] = [];
  for (let i = 0; i < apps; i++) {
    const app = await registerClient(em(), { client_name: `App ${i}`, redirect_uris: [REDIRECT], scope });
    const client = { client_id: app.client_id, redirect_uri: REDIRECT };
    const verifier = randomBytes(32).toString('base64url');
    const pkce = { code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256' };
    const ask = new URLSearchParams({ response_type: 'code', ...client, scope, resource, ...pkce });
    const asked = await startAuthorization(em(), ask, issuer);
    const pending = asked.kind === 'consent' ? await pendingRequest(em(), asked.requestId) : undefined;
    if (!pending) throw new Error(`platform day: authorization refused: ${JSON.stringify(asked)}`);
    const code = new URL(await approve(em(), pending, session, issuer)).searchParams.get('code') ?? '';
    const grant = { grant_type: 'authorization_code' as const, ...client, code, code_verifier: verifier };
    tokens.push((await exchangeCode(em(), { ...grant, resource: [resource] }, issuer)).access_token);
  }
  return { id: storeId, skus, tokens };
}

export function printPlatformDay(r: PlatformDayResult) {
  const { rps, p99, errors } = r.targets;
  const met = (x: { met: boolean }) => (x.met ? 'met' : 'MISSED');
  console.log(
    `\nPlatform day: ${r.connections} connections, ${r.seconds} s; overall p50/p99 leave out the long poll`,
  );
  const cells = (x: Record<keyof ClassFigures, unknown>) =>
    [x.count, x.p50, x.p99, x.max, x.errors, x.rate_limited].map(String);
  const name = (c: ClassName) => (c === LONG_POLL ? `${c} (long poll)` : c);
  printTable(
    ['class', '%', 'count', 'p50 ms', 'p99 ms', 'max ms', 'errors', '429s'],
    [
      ...CLASSES.map((c) => [name(c), `${WEIGHTS[c]}`, ...cells(r.classes[c])]),
      ['overall', '100', ...cells({ ...r, count: r.requests, max: '' })],
    ],
  );
  console.log(
    `targets: ${r.rps} req/s ≥ ${rps.target} ${met(rps)}; p99 ${r.p99} ms ≤ ${p99.target} ${met(p99)}; ` +
      `${r.errors} errors ${met(errors)}; ${r.webhook_deliveries} webhook deliveries during the run`,
  );
  for (const s of r.error_samples) console.log(`  error: ${s}`);
  const a = r.alone;
  if (!a.cpu_ms_per_mix_request) return;
  console.log(`\nEach class alone at ${r.connections} connections, priced in machine CPU (${a.cores} cores)`);
  printTable(
    ['class', '%', 'req/s', 'p50 ms', 'p99 ms', 'errors', '429s', 'CPU ms/request', 'share of the mix'],
    Object.entries(a.classes).map(([c, x]) => [
      ...[c, `${WEIGHTS[c as ClassName]}`, `${x.rps}`, `${x.p50}`, `${x.p99}`, `${x.errors}`],
      ...[`${x.rate_limited}`, `${x.cpu_ms}`, `${Math.round(x.mix_share * 100)}%`],
    ]),
  );
  console.log(
    `the mix costs ${a.cpu_ms_per_mix_request} CPU ms a request: ${a.cpu_bound_rps} req/s with every core busy ` +
      `(the mix itself: ${r.cpu_ms_per_request} CPU ms a request, cores ${Math.round((r.cpu_busy_share ?? 0) * 100)}% busy)`,
  );
  if (r.raw) printRaw(r.raw);
}

function printRaw(raw: NonNullable<PlatformDayResult['raw']>) {
  console.log(
    '\nThe read classes on the same sampled paths, the API against the raw replay of its statements',
  );
  const side = (x: SideFigures) => [`${x.rps}`, `${x.p50}`, `${x.p99}`, `${x.errors}`, `${x.cpu_ms}`];
  printTable(
    [
      'class',
      'paths',
      'API req/s',
      'p50',
      'p99',
      'err',
      'CPU ms',
      'raw req/s',
      'p50',
      'p99',
      'err',
      'CPU ms',
      'CPU ratio',
    ],
    Object.entries(raw.classes).map(([c, x]) => [
      c,
      `${x.paths}`,
      ...side(x.api),
      ...side(x.raw),
      `${x.cpu_ratio}x`,
    ]),
  );
  for (const [c, x] of Object.entries(raw.classes))
    for (const e of [...x.api.error_samples, ...x.raw.error_samples]) console.log(`  ${c} error: ${e}`);
  console.log(
    `with every read class at its raw cost (writes at the API's): ${raw.cpu_ms_per_mix_request} CPU ms a request, ` +
      `${raw.cpu_bound_rps} req/s with every core busy`,
  );
}
