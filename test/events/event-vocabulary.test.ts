import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EventEnvelope, WebhookPayloads } from '../../client/src/index.ts';
import {
  COALESCED_EVENTS,
  EVENT,
  EVENT_NAMES,
  type EventName,
  isEventName,
  ORDER_PAYLOAD_EVENTS,
  TRIGGERABLE_EVENTS,
} from '../../src/events/vocabulary/index.ts';
import { eventSpellings, stringsOf } from '../helpers/string-literals.ts';

/**
 * Code says an event's name through the vocabulary (`EVENT.order.created`), so a rename or a new
 * event is one edit and the compiler finds every use. Exempt: the vocabulary itself; tests, docs and
 * benches (they state what the contract promises, as a partner would write it); and the generated
 * OpenAPI types of the SDK (client/src/generated/), which are written from openapi.json, itself
 * written from the vocabulary. Prose inside a string (a description saying "Emits `product.updated`")
 * is documentation and stays readable; a string that IS a name, an event key built on one
 * (`order.shipped:9001`) or a name quoted in SQL text (`'order.created'`) is code and is refused.
 */
const SCANNED = ['src', 'server', 'jobs', 'client/src'];
const EXEMPT = [/^src\/events\/vocabulary\//, /^client\/src\/generated\//, /^src\/migrations\//];

function scannedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...SCANNED], {
    encoding: 'utf8',
  });
  return listed.split('\n').filter((f) => /\.tsx?$/.test(f) && !EXEMPT.some((re) => re.test(f)));
}

/** Whether two types are the same: the SDK's event names, generated from openapi.json, against ours. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sdkPayloadsNameEveryEvent: Same<keyof WebhookPayloads, EventName> = true;
const sdkEnvelopeNamesEveryEvent: Same<EventEnvelope['event'], EventName> = true;

describe('the event vocabulary', () => {
  it('lists every event once, and its groups name only events', () => {
    expect(new Set(EVENT_NAMES).size).toBe(EVENT_NAMES.length);
    const grouped = Object.values(EVENT).flatMap((group) => Object.values(group));
    expect([...grouped].sort()).toEqual([...EVENT_NAMES].sort());
    for (const name of [...ORDER_PAYLOAD_EVENTS, ...COALESCED_EVENTS, ...TRIGGERABLE_EVENTS])
      expect(isEventName(name)).toBe(true);
    expect(TRIGGERABLE_EVENTS).not.toContain(EVENT.webhook.ping);
  });

  it('is what the contract and the SDK list: the webhooks and the envelope of openapi.json, in order', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    expect(Object.keys(doc.webhooks)).toEqual(EVENT_NAMES);
    expect(doc.components.schemas.EventEnvelope.properties.event.enum).toEqual(EVENT_NAMES);
    // The SDK's types are generated from that document (sdk-types.ts); the compiler holds them equal.
    expect([sdkPayloadsNameEveryEvent, sdkEnvelopeNamesEveryEvent]).toEqual([true, true]);
  });

  it('is the one place an event name is spelled in src/, server/, jobs/ and client/src', () => {
    const found = scannedFiles().flatMap((file) =>
      eventSpellings(readFileSync(file, 'utf8'), EVENT_NAMES).map((s) => `${file}:${s.line}: ${s.text}`),
    );
    expect(found).toEqual([]);
  });

  it('finds a name written as a string, an event key or SQL text, and passes prose and comments', () => {
    const code = [
      "const a = 'order.created';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the lexer, not a template
      'const b = `webhook.ping:${id}`;',
      "const c = sql`SELECT 'inventory.updated'`;",
      'const d = { "product.deleted": 1 };',
      "const e = 'Emits `product.updated` when it changes';",
      '// order.created in a comment',
      "const f = /'/.test(x) ? 'order.*' : 'order.shipped';",
    ].join('\n');
    expect(eventSpellings(code, EVENT_NAMES).map((s) => s.line)).toEqual([1, 2, 3, 4, 7]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the lexer, not a template
    expect(stringsOf('const s = `a${`b${"c"}`}d`;').map((s) => s.text)).toEqual(['a', 'b', 'c', '', 'd']);
  });
});
