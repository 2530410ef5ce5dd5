/**
 * Catches up on the store's events from where it left off, then (with --follow) keeps following them
 * as they happen: what a webhook consumer does after being down, with no resend asked of anyone.
 *
 *   npm run example -- events-catch-up                          # everything since the stored cursor, then exit
 *   npm run example -- events-catch-up --follow                 # then wait for new events (Ctrl-C to stop)
 *   npm run example -- events-catch-up --type order.*,invoice.issued
 *
 * The cursor is stored in a file after each page is handled (EVENTS_CURSOR_FILE, default
 * examples/.events-cursor); delete it to read the whole log (30 days). Events are keyed on `id`:
 * a page re-read after a crash repeats some, as webhook deliveries can.
 */
import { resolve } from 'node:path';
import type { StocklessEvent } from '@stockless/sdk';
import { clientFromEnv, loadCursor, saveCursor } from './shared.ts';

const stockless = clientFromEnv();
const cursorFile = resolve(process.env.EVENTS_CURSOR_FILE ?? resolve(import.meta.dirname, '.events-cursor'));
const follow = process.argv.includes('--follow');
const typeAt = process.argv.indexOf('--type');
const type = typeAt > 0 ? process.argv[typeAt + 1]?.split(',') : undefined;

/** Handle the event in your own system here; `data` is typed by `event`. */
function handle(e: StocklessEvent): void {
  const what =
    e.event === 'order.created' || e.event === 'order.shipped'
      ? `order ${e.data.order?.order_number ?? '?'}`
      : JSON.stringify(e.data).slice(0, 80);
  console.log(
    `${e.created_at}  ${e.id.padEnd(12)} ${e.event.padEnd(18)} ${what}${e.livemode ? '' : '  (test)'}`,
  );
}

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
const events = stockless.events.iterate({
  cursor: await loadCursor(cursorFile),
  type,
  follow,
  signal: stop.signal,
});
let seen = 0;
let saved = events.cursor;
try {
  for await (const event of events) {
    handle(event);
    seen++;
    // The stream's cursor moves once a page is read to its end: store it then.
    if (events.cursor && events.cursor !== saved) {
      saved = events.cursor;
      await saveCursor(cursorFile, saved);
    }
  }
} catch (err) {
  if (!stop.signal.aborted) throw err;
}
if (events.cursor && events.cursor !== saved) await saveCursor(cursorFile, events.cursor);
console.log(`${seen} events; cursor saved to ${cursorFile}`);
