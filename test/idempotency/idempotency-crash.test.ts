import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.ts';
import { internal, mintAppToken } from '../helpers/oauth.ts';
import {
  type ApiProcess,
  asTestApp,
  createTestDatabase,
  startApiProcess,
  type TestDatabase,
  type TestStore,
} from '../helpers/processes.ts';

/**
 * Crash test of Idempotency-Key (issue 26): a real `serve` process takes a burst of keyed writes
 * (wholesale orders, marketplace posts, listing adds, webhook creations), each with its own key, and
 * is killed with SIGKILL (its whole process group) while they are in flight. Another process starts
 * on the same database and every key is retried with the identical request. After any crash a retry
 * must find the committed answer and replay it, or find nothing and run: no key stuck on
 * 409 IDEMPOTENCY_KEY_IN_USE, every acknowledged answer replayed byte for byte, exactly one effect
 * per key, and stock that adds up to the orders that exist. An answer that says retry (409
 * CONCURRENT_UPDATE, 503 after waiting on a lock: contention between the burst's writes, which
 * changed nothing and so must not be kept) is sent again, as the SDK does.
 */

const ROUNDS = 3;
/** How many answers arrive before the kill, per round: early, middle and late in the burst. */
const KILL_AFTER = [1, 5, 12];
/** The kill comes at the latest this long after the burst starts, answered or not. */
const KILL_DEADLINE_MS = 5000;
const PER_ROUND = { order: 12, marketplace: 8, listing: 8, webhook: 6 } as const;

/** Limits out of the way: a 429 is not kept, and would only thin the burst. */
const ENV = {
  APP_RATE_LIMIT: '1000000',
  EXTERNAL_ORDERS_RATE_LIMIT: '1000000',
  OAUTH_TOKEN_RATE_LIMIT: '1000000',
  OAUTH_REGISTER_RATE_LIMIT: '1000000',
};

const SHIPPING = { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };
const PRICE = 4500;

type Op = keyof typeof PER_ROUND;

interface Keyed {
  op: Op;
  key: string;
  path: string;
  credential: string;
  body: Record<string, unknown>;
}

interface Answer {
  status: number;
  text: string;
  replayed: string | null;
  retryAfter: string | null;
}

let db: TestDatabase & { first: TestStore };
/** The process that takes the burst and is killed. */
let api: ApiProcess;
/**
 * The processes that take over after each kill, on the same database (each then takes the next
 * round's burst). A Node process takes seconds to start, so all are started at the outset, as a
 * supervisor keeps replicas; none serves anything before the crash it takes over from, and all it
 * knows of the keys it reads from PostgreSQL.
 */
let takeovers: Promise<ApiProcess>[] = [];
let pool: pg.Pool;
const run = randomUUID().slice(0, 8);

beforeAll(async () => {
  db = await createTestDatabase();
  const started = Array.from({ length: ROUNDS + 1 }, () =>
    startApiProcess(db.databaseUrl, ENV, { ownProcessGroup: true }),
  );
  // Each is awaited in its turn; a failed start is reported there, not as an unhandled rejection.
  for (const p of started) p.catch(() => {});
  takeovers = started.slice(1);
  api = await (started[0] as Promise<ApiProcess>);
  pool = new pg.Pool({ connectionString: db.databaseUrl, max: 2 });
}, 60_000);
afterAll(async () => {
  const waiting = await Promise.allSettled(takeovers);
  const procs = new Set([api, ...waiting.map((w) => (w.status === 'fulfilled' ? w.value : undefined))]);
  await Promise.all([...procs].map((p) => p?.stop()));
  await pool?.end();
  await db?.close();
});

async function query<T>(text: string, values: unknown[]): Promise<T[]> {
  return (await pool.query(text, values)).rows as T[];
}

/** One request exactly as the client sends it, every time: same method, path, body and credential. */
async function send(proc: ApiProcess, r: Keyed): Promise<Answer> {
  const res = await fetch(`${proc.url}${r.path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${r.credential}`,
      'content-type': 'application/json',
      'idempotency-key': r.key,
    },
    body: JSON.stringify(r.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    replayed: res.headers.get('idempotent-replayed'),
    retryAfter: res.headers.get('retry-after'),
  };
}

/** What a round writes with: a store of its own (webhook subscriptions are limited to 10 a store). */
async function prepareRound(round: number) {
  const store = await db.createStore(`Crash Round ${round}`);
  const fx = fixtures(db.em());
  const supplierId = await fx.supplier({ name: `Crash Maker ${round}` });
  const wholesale = [
    await fx.product({ supplierId, stock: [1000] }),
    await fx.product({ supplierId, stock: [1000] }),
  ];
  const listable = [];
  for (let i = 0; i < PER_ROUND.listing; i++) listable.push(await fx.product({ supplierId, stock: [5] }));
  const app = asTestApp(db, api);
  const sku = `CRASH-${run}-${round}`;
  const own = await internal(app).listings.createOwnGoods({
    storeId: store.id,
    sku,
    name: `Handmade ${sku}`,
    priceCents: PRICE,
    stock: 1000,
  });
  const token = await mintAppToken(app, store.id, ['write_external_orders']);
  const keyOf = (op: Op, i: number) => `crash-${run}-r${round}-${op}-${i}`;
  const requests: Keyed[] = [];
  for (let i = 0; i < PER_ROUND.order; i++) {
    const key = keyOf('order', i);
    const items = [{ product_id: wholesale[0], quantity: 1 + (i % 3) }];
    if (i % 2 === 1) items.push({ product_id: wholesale[1], quantity: 2 });
    requests.push({
      op: 'order',
      key,
      path: '/api/v1/orders',
      credential: store.readWrite,
      body: {
        customer: { email: `${key}@crash.test`, name: `Buyer ${i}`, phone: '+61 400 000 000' },
        items,
        shipping: SHIPPING,
      },
    });
  }
  for (let i = 0; i < PER_ROUND.marketplace; i++) {
    const key = keyOf('marketplace', i);
    const quantity = 1 + (i % 2);
    requests.push({
      op: 'marketplace',
      key,
      path: '/api/v1/orders/external',
      credential: token.access_token,
      body: {
        marketplace: 'crashmart',
        external_order_id: key,
        placed_at: '2026-11-20T09:30:00+11:00',
        currency: 'AUD',
        customer: { email: `${key}@crash.test`, name: `Marketplace Buyer ${i}`, phone: '' },
        shipping: SHIPPING,
        items: [{ sku, quantity, price_cents: PRICE }],
        total_cents: quantity * PRICE,
      },
    });
  }
  for (let i = 0; i < PER_ROUND.listing; i++) {
    requests.push({
      op: 'listing',
      key: keyOf('listing', i),
      path: '/api/v1/my-products',
      credential: store.readWrite,
      body: { product_id: listable[i] },
    });
  }
  for (let i = 0; i < PER_ROUND.webhook; i++) {
    const key = keyOf('webhook', i);
    requests.push({
      op: 'webhook',
      key,
      path: '/api/v1/vendor/webhooks',
      credential: store.readWrite,
      body: { url: `https://127.0.0.1:9/crash/${key}`, events: ['order.created'] },
    });
  }
  // Interleaved, so every operation is in flight when the kill comes.
  const ops = Object.keys(PER_ROUND) as Op[];
  const byOp = ops.map((op) => requests.filter((r) => r.op === op));
  const interleaved: Keyed[] = [];
  for (let i = 0; interleaved.length < requests.length; i++) {
    for (const list of byOp) if (list[i]) interleaved.push(list[i] as Keyed);
  }
  const [ownVariant] = await query<{ id: number }>('SELECT id FROM product_variants WHERE product_id = $1', [
    own.product_id,
  ]);
  const variants = await query<{ id: number; stock_quantity: number }>(
    'SELECT id, stock_quantity FROM product_variants WHERE product_id = ANY($1::integer[])',
    [[...wholesale, own.product_id]],
  );
  if (!ownVariant || variants.length !== 3) throw new Error('round fixtures incomplete');
  return {
    store,
    requests: interleaved,
    initialStock: new Map(variants.map((v) => [v.id, v.stock_quantity])),
  };
}

/** The ids of what a key's request wrote in the database (as many as there are: exactly one is right). */
async function effectsOf(storeId: number, r: Keyed): Promise<number[]> {
  const ids = async (text: string, value: unknown) =>
    (await query<{ id: number }>(text, [storeId, value])).map((x) => x.id);
  switch (r.op) {
    case 'order':
      return ids('SELECT id FROM orders WHERE store_id = $1 AND customer_email = $2', `${r.key}@crash.test`);
    case 'marketplace':
      return ids('SELECT id FROM orders WHERE store_id = $1 AND external_order_id = $2', r.key);
    case 'listing':
      return ids(
        'SELECT product_id AS id FROM listings WHERE store_id = $1 AND product_id = $2 AND deleted_at IS NULL',
        r.body.product_id,
      );
    case 'webhook':
      return ids(
        'SELECT id FROM webhook_subscriptions WHERE store_id = $1 AND url LIKE $2',
        `%/crash/${r.key}`,
      );
  }
}

/** The id the answer names, to compare with the effect in the database. */
function answeredId(r: Keyed, text: string): number | undefined {
  try {
    const body = JSON.parse(text) as {
      order?: { id?: number };
      webhook?: { id?: number };
      vendor_product?: unknown;
    };
    if (r.op === 'webhook') return body.webhook?.id;
    if (r.op === 'listing') return body.vendor_product ? (r.body.product_id as number) : undefined;
    return body.order?.id;
  } catch {
    return undefined;
  }
}

const codeOf = (a: Answer) => {
  try {
    return (JSON.parse(a.text) as { code?: string }).code;
  } catch {
    return undefined;
  }
};
const isInUse = (a: Answer) => a.status === 409 && codeOf(a) === 'IDEMPOTENCY_KEY_IN_USE';
/**
 * The answers that tell a client to send the request again, having changed nothing and kept nothing:
 * 409 CONCURRENT_UPDATE (a deadlock or serialisation failure), 503 (QUERY_TOO_EXPENSIVE: it waited
 * too long on rows another request held) and 429. The SDK retries them. Not so IDEMPOTENCY_KEY_IN_USE:
 * after the crash nobody holds a key, so that answer is a stuck key.
 */
const saysRetry = (a: Answer) =>
  a.status === 429 || a.status === 503 || (a.status === 409 && codeOf(a) === 'CONCURRENT_UPDATE');

/** The retry as a client makes it: sent again (a few times, backing off) while told to retry. */
async function retry(proc: ApiProcess, r: Keyed, counts: { toldToRetry: number }): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send(proc, r);
    // A replay is a kept answer: asking again changes nothing.
    if (!saysRetry(answer) || answer.replayed === 'true' || attempt === 5) return answer;
    counts.toldToRetry++;
    const asked = Math.min(Number(answer.retryAfter) || 0, 1) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(asked, 20 * 2 ** attempt)));
  }
}

interface RoundReport {
  round: number;
  sent: number;
  acknowledged: number;
  inFlight: number;
  /** Retries answered 409 IDEMPOTENCY_KEY_IN_USE after the restart: nobody holds the key. */
  stuck: number;
  /** Of the stuck keys, those whose write had committed (a takeover would run it a second time). */
  stuckCommitted: number;
  /** Retries of unanswered keys with another status than a first run's 201: the write ran again, or failed. */
  notAsFirstRun: number;
  /**
   * Answers that said to retry (409 CONCURRENT_UPDATE, 503, 429), in the burst or among the retries
   * (which send the request again). Reported, not a failure: the contract allows them under contention.
   */
  toldToRetry: number;
  /** Answers of the burst other than 201 and those that say retry (every request of it is valid). */
  failedFirstRun: number;
  /** Acknowledged keys whose retry was not the same status and bytes with `Idempotent-Replayed: true`. */
  replayMismatch: number;
  /** Keys (not stuck) with nothing in the database for them. */
  lost: number;
  /** Keys with more than one effect in the database. */
  duplicated: number;
  /** Answers naming another object than the one the database holds for their key. */
  answerNotEffect: number;
  /** Variants whose stock is not the starting stock less the lines of the orders that exist. */
  unbalancedStock: number;
  examples: string[];
}

async function crashRound(round: number): Promise<RoundReport> {
  const { store, requests, initialStock } = await prepareRound(round);
  const killAfter = KILL_AFTER[(round - 1) % KILL_AFTER.length] ?? 1;

  // The burst, and the kill once `killAfter` answers are in (or at the deadline).
  let answered = 0;
  let killNow = () => {};
  const killSignal = new Promise<void>((resolve) => {
    killNow = resolve;
  });
  const deadline = setTimeout(killNow, KILL_DEADLINE_MS);
  const firsts = requests.map(async (r): Promise<Answer | undefined> => {
    try {
      const answer = await send(api, r);
      if (++answered >= killAfter) killNow();
      return answer;
    } catch {
      return undefined; // the connection died with the process: no answer
    }
  });
  await killSignal;
  clearTimeout(deadline);
  await api.crash();
  const acknowledged = await Promise.all(firsts);

  const takeover = takeovers[round - 1];
  if (!takeover) throw new Error(`no process to take over in round ${round}`);
  api = await takeover;
  const counts = { toldToRetry: 0 };
  const retries = await Promise.all(requests.map((r) => retry(api, r, counts)));

  const report: RoundReport = {
    round,
    sent: requests.length,
    acknowledged: acknowledged.filter(Boolean).length,
    inFlight: acknowledged.filter((a) => !a).length,
    stuck: 0,
    stuckCommitted: 0,
    notAsFirstRun: 0,
    toldToRetry: counts.toldToRetry,
    failedFirstRun: 0,
    replayMismatch: 0,
    lost: 0,
    duplicated: 0,
    answerNotEffect: 0,
    unbalancedStock: 0,
    examples: [],
  };
  const note = (line: string) => {
    if (report.examples.length < 6) report.examples.push(line);
  };
  for (const [i, r] of requests.entries()) {
    const first = acknowledged[i];
    const retry = retries[i] as Answer;
    const effects = await effectsOf(store.id, r);
    const what = `round ${round} ${r.op} ${r.key} (${first ? `answered ${first.status}` : 'no answer'})`;
    if (effects.length > 1) {
      report.duplicated++;
      note(`${what}: ${effects.length} effects ${JSON.stringify(effects)}`);
    }
    if (isInUse(retry)) {
      report.stuck++;
      if (effects.length > 0) report.stuckCommitted++;
      note(
        `${what}: retry 409 IDEMPOTENCY_KEY_IN_USE, ${effects.length ? 'write committed' : 'nothing written'}`,
      );
      continue;
    }
    if (effects.length === 0) {
      report.lost++;
      note(`${what}: retry ${retry.status} replayed=${retry.replayed}, nothing in the database`);
    }
    if (first && saysRetry(first)) {
      // Told to retry: nothing was done or kept, so the retry runs it.
      report.toldToRetry++;
      if (retry.status !== 201 || retry.replayed === 'true') {
        report.notAsFirstRun++;
        note(`${what}: retry ${retry.status} replayed=${retry.replayed} ${retry.text.slice(0, 200)}`);
      }
    } else if (first && first.status !== 201) {
      // Every request of the burst is valid: a refusal or a 5xx is a fault of its own, whatever the retry.
      report.failedFirstRun++;
      note(`${what}: first answer ${first.status} ${first.text.slice(0, 200)}`);
    } else if (first) {
      if (retry.status !== first.status || retry.text !== first.text || retry.replayed !== 'true') {
        report.replayMismatch++;
        note(`${what}: retry ${retry.status} replayed=${retry.replayed} ${retry.text.slice(0, 200)}`);
      }
    } else if (retry.status !== 201) {
      // Unanswered: it committed (its 201 is replayed) or it did not (it runs now, 201). A replayed
      // refusal, a 200 "already in" or an ALREADY_LISTED means the write ran twice or failed.
      report.notAsFirstRun++;
      note(`${what}: retry ${retry.status} replayed=${retry.replayed} ${retry.text.slice(0, 200)}`);
    }
    const id = answeredId(r, retry.text);
    if (retry.status < 300 && effects.length === 1 && id !== effects[0]) {
      report.answerNotEffect++;
      note(`${what}: the answer names ${id}, the database holds ${effects[0]}`);
    }
  }

  const stock = await query<{ id: number; stock_quantity: number; taken: number }>(
    `SELECT v.id, v.stock_quantity,
        COALESCE((SELECT sum(l.quantity) FROM order_lines l JOIN orders o ON o.id = l.order_id
          WHERE l.variant_id = v.id AND o.status <> 'cancelled'), 0)::integer AS taken
      FROM product_variants v WHERE v.id = ANY($1::integer[]) ORDER BY v.id`,
    [[...initialStock.keys()]],
  );
  for (const v of stock) {
    const start = initialStock.get(v.id) ?? 0;
    if (v.stock_quantity !== start - v.taken) {
      report.unbalancedStock++;
      note(`round ${round} variant ${v.id}: stock ${v.stock_quantity}, expected ${start} - ${v.taken}`);
    }
  }
  return report;
}

describe('Idempotency-Key across a crash (kill -9 of the API process group mid-burst, restart, retry every key)', () => {
  it(`keeps exactly one effect per key and replays every acknowledged answer, over ${ROUNDS} rounds`, async () => {
    const reports: RoundReport[] = [];
    for (let round = 1; round <= ROUNDS; round++) reports.push(await crashRound(round));
    const summary = reports.map(({ examples: _examples, ...figures }) => figures);
    const told = [...summary.map((s) => JSON.stringify(s)), ...reports.flatMap((r) => r.examples)].join('\n');

    // The test proves something only if the kill caught writes in flight.
    expect(
      reports.map((r) => r.inFlight > 0),
      `every round must kill with requests in flight\n${told}`,
    ).toEqual(reports.map(() => true));
    // ... and only if some answers went out before it, to be replayed.
    expect(
      reports.reduce((n, r) => n + r.acknowledged, 0),
      `some request must be answered before a kill\n${told}`,
    ).toBeGreaterThan(0);
    const clean = {
      stuck: 0,
      stuckCommitted: 0,
      notAsFirstRun: 0,
      failedFirstRun: 0,
      replayMismatch: 0,
      lost: 0,
      duplicated: 0,
      answerNotEffect: 0,
      unbalancedStock: 0,
    };
    expect(
      summary.map(
        ({ round: _r, sent: _s, acknowledged: _a, inFlight: _f, toldToRetry: _t, ...problems }) => problems,
      ),
      `after kill -9 and a restart every retried key must replay or run once\n${told}`,
    ).toEqual(summary.map(() => clean));
  }, 60_000);
});
