#!/usr/bin/env node
/**
 * `stockless-listen`: the SDK's `listen` as a command. Follows a store's events with an API key and
 * forwards each to a local URL, signed as a real delivery.
 *
 *   stockless-listen --api-key sl_test_… --forward-to http://localhost:4242/hook [--events order.*,invoice.issued]
 */
import { parseArgs } from 'node:util';
import { Stockless } from './client.ts';
import { describeForwarded, developmentSecret, listen } from './listen.ts';

const USAGE = `usage: stockless-listen --forward-to URL [--api-key KEY] [--base-url URL] [--events a,b] [--secret whsec_…]

  --forward-to URL   where each event is POSTed (your webhook endpoint, e.g. http://localhost:4242/hook)
  --api-key KEY      an API key of the store (default: $STOCKLESS_API_KEY); sl_test_ keys follow test events
  --base-url URL     the Stockless API (default: $STOCKLESS_BASE_URL or http://localhost:3000)
  --events LIST      event names or prefixes, comma-separated (default: every event)
  --secret SECRET    the signing secret to use (default: $STOCKLESS_WEBHOOK_SECRET or a new one, printed)`;

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
const forwardTo = str(values['forward-to']) ?? fail('--forward-to is required');
const apiKey =
  str(values['api-key']) ??
  process.env.STOCKLESS_API_KEY ??
  fail('--api-key (or STOCKLESS_API_KEY) is required');
const baseUrl = str(values['base-url']) ?? process.env.STOCKLESS_BASE_URL ?? 'http://localhost:3000';
const secret = str(values.secret) ?? process.env.STOCKLESS_WEBHOOK_SECRET ?? developmentSecret();
const events = str(values.events)
  ?.split(',')
  .map((e) => e.trim());

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
console.log(`Forwarding events to ${forwardTo}; signing secret: ${secret}  (Ctrl-C to stop)`);
await listen(new Stockless({ baseUrl, apiKey }), {
  forwardTo,
  secret,
  events,
  signal: stop.signal,
  onForward: (f) => console.log(describeForwarded(f)),
});
