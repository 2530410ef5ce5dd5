/**
 * The envelope every event has, in the event log (GET /api/v1/events) and in every webhook delivery
 * alike: `{ id, event, event_key, created_at, livemode, data }`. The stored bytes are the delivered
 * bytes; the id is the log row's, so the text is finished in the statement that draws the row's id.
 */

import type { EventName } from './vocabulary/index.ts';

/** An event's public id: `evt_` and the log row's id in base 10. */
export const EVENT_ID_PREFIX = 'evt_';

/** The public id of log row `rowId`. */
export function eventId(rowId: string | number | bigint): string {
  return `${EVENT_ID_PREFIX}${rowId}`;
}

/** The log row id (int8, as text) an event id names, or null when it is not an event id. */
export function rowIdOf(id: string): string | null {
  // 18 digits at most: every such number fits int8, so the lookup can never overflow.
  const m = /^evt_([1-9]\d{0,17})$/.exec(id);
  return m ? (m[1] as string) : null;
}

export interface EnvelopeFields {
  event: EventName;
  event_key: string;
  created_at: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

/**
 * The envelope's JSON text without its id: `{"event":…,"livemode":…,"data":…}`. The statement that
 * stores it prepends `"id":"evt_<row id>",` (see `withEventId`), so the id comes first.
 */
export function envelopeWithoutId(e: EnvelopeFields): string {
  return JSON.stringify({
    event: e.event,
    event_key: e.event_key,
    created_at: e.created_at,
    livemode: e.livemode,
    data: e.data,
  });
}
