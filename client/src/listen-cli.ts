#!/usr/bin/env node
/**
 * `stockless-listen`: the SDK's `listen` as a command. Follows a store's events with an API key and
 * forwards each to a local URL, signed as a real delivery.
 *
 *   stockless-listen --api-key sl_test_… --forward-to http://localhost:4242/hook [--events order.*,invoice.issued]
 *   stockless-listen --api-key sl_test_… --forward-to http://localhost:4242/hook --resend evt_12
 *   stockless-listen --api-key sl_live_… --requests [--status-class 4xx] [--operation listOrders]
 */
import { parseArgs } from 'node:util';
import { Stockless } from './client.ts';
import {
  type ConnectionChange,
  describeConnection,
  describeForwarded,
  listen,
  resendEvent,
  whenReachable,
} from './listen.ts';
import { followRequests, requestFilters } from './listen-requests.ts';
import { rememberedSecret } from './listen-secrets.ts';

const USAGE = `usage: stockless-listen --forward-to URL [--api-key KEY] [--base-url URL] [--events a,b] [--secret whsec_…] [--resend evt_…]
       stockless-listen --requests [--api-key KEY] [--base-url URL] [--status-class 2xx|4xx|5xx] [--status N]
                        [--operation ID] [--credential PREFIX]

  --forward-to URL   where each event is POSTed (your webhook endpoint, e.g. http://localhost:4242/hook)
  --api-key KEY      an API key of the store (default: $STOCKLESS_API_KEY); sl_test_ keys follow test events
  --base-url URL     the Stockless API (default: $STOCKLESS_URL or http://localhost:3000)
  --events LIST      event names or prefixes, comma-separated (default: every event)
  --secret SECRET    the signing secret (default: $STOCKLESS_WEBHOOK_SECRET, else the one kept for this
                     store and URL in ~/.config/stockless/listen-secrets.json, made on first use)
  --resend ID        forward that one event again (evt_…) and exit
  --requests         follow the store's request log instead (like stripe logs tail): one line per request
                     (time, status, method, path, duration, request id), filtered by --status-class,
                     --status, --operation (an operationId) and --credential (a key prefix or client_id)`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

let values: Record<string, string | boolean | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      'forward-to': { type: 'string' },
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
      events: { type: 'string' },
      secret: { type: 'string' },
      resend: { type: 'string' },
      requests: { type: 'boolean' },
      'status-class': { type: 'string' },
      status: { type: 'string' },
      operation: { type: 'string' },
      credential: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const str = (v: string | boolean | undefined) => (typeof v === 'string' && v !== '' ? v : undefined);
const apiKey =
  str(values['api-key']) ??
  process.env.STOCKLESS_API_KEY ??
  fail('--api-key (or STOCKLESS_API_KEY) is required');
const baseUrl = str(values['base-url']) ?? process.env.STOCKLESS_URL ?? 'http://localhost:3000';
if (!URL.canParse(baseUrl)) fail(`--base-url ${baseUrl}: expected a URL such as http://localhost:3000`);
if (values.requests) {
  const filters = requestFilters(values, str, fail);
  process.exit(await followRequests(new Stockless({ baseUrl, apiKey }), filters));
}
const forwardTo = str(values['forward-to']) ?? fail('--forward-to is required');
if (!URL.canParse(forwardTo)) fail(`--forward-to ${forwardTo}: expected an http:// or https:// URL`);
const events = str(values.events)
  ?.split(',')
  .map((e) => e.trim());

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

/** One line when the API goes away (a restart) and one when it is back. */
function onConnection(change: ConnectionChange) {
  console.error(describeConnection(change, 'set STOCKLESS_URL or --base-url if it serves elsewhere'));
}

try {
  const client = new Stockless({ baseUrl, apiKey });
  const me = await whenReachable(() => client.store.me({ signal: stop.signal }), {
    signal: stop.signal,
    onConnection,
  });
  if (!me) process.exit(0);
  const given = str(values.secret) ?? process.env.STOCKLESS_WEBHOOK_SECRET;
  const target = { baseUrl, storeId: me.store.id, livemode: !apiKey.startsWith('sl_test_'), forwardTo };
  const kept = given ? undefined : await rememberedSecret(target);
  const secret = given ?? kept?.secret ?? '';
  const resend = str(values.resend);
  if (resend) {
    const f = await resendEvent(client, resend, { forwardTo, secret, signal: stop.signal });
    console.log(describeForwarded(f));
    process.exit(f.status !== undefined && f.status < 400 ? 0 : 1);
  }
  const where = kept?.file ? (kept.isNew ? ` (new, kept in ${kept.file})` : ` (kept in ${kept.file})`) : '';
  console.log(
    `Forwarding store ${me.store.id}'s events to ${forwardTo}; signing secret: ${secret}${where}  (Ctrl-C to stop)`,
  );
  await listen(client, {
    forwardTo,
    secret,
    events,
    signal: stop.signal,
    onConnection,
    onForward: (f) => console.log(describeForwarded(f)),
  });
} catch (err) {
  // An API key that is refused, an event that does not exist: the API's own words, one line.
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
