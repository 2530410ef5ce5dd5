import { TRIGGERABLE_EVENTS } from '../../src/events/vocabulary/index.ts';
import { didYouMean, suggest } from '../suggest.ts';
import { integer, optionalString, type Parsed, requireString, UsageError } from './args.ts';
import { type CommandDef, type CommandEnv, command } from './command.ts';

/**
 * `listen`: the store's events, as they happen, POSTed to a local URL and signed as real deliveries
 * (the SDK's `listen` over the events API's long poll). It reads with a key of its own, made for the
 * session and revoked when it stops: test mode unless `--live`. It outlives a restart of the API
 * (waits, then resumes where it was), signs with the secret kept for this store and URL, and
 * `--resend evt_…` forwards one event again.
 */
export const listenCommand: CommandDef = command({
  name: 'listen',
  synopsis: '--store ID --forward-to URL [--events a,b] [--live] [--secret whsec_…] [--resend evt_…]',
  description: "forwards the store's events to a local URL, signed as real deliveries, until Ctrl-C",
  flags: {
    store: { type: 'string', value: 'ID', help: 'the store whose events to follow' },
    'forward-to': {
      type: 'string',
      value: 'URL',
      help: 'where each event is POSTed (http://localhost:4242/hook)',
    },
    events: { type: 'string', value: 'a,b', help: 'event names or prefixes, comma-separated (default: all)' },
    live: { type: 'boolean', help: 'follow live events (default: test mode)' },
    secret: {
      type: 'string',
      value: 'whsec_…',
      help: 'the signing secret (default: the one kept for this store and URL, made on first use)',
    },
    resend: { type: 'string', value: 'evt_…', help: 'forward that one event again, then exit' },
  },
  run: async ({ values }, env) => {
    const storeId = integer(values.store, '--store');
    const forwardTo = requireString(values, 'forward-to');
    if (!URL.canParse(forwardTo) || !/^https?:$/.test(new URL(forwardTo).protocol))
      throw new UsageError(`--forward-to ${forwardTo}: expected an http:// or https:// URL`);
    const live = values.live === true;
    const operator = await env.operator();
    const key = await operator.store.createApiKey({
      storeId,
      scope: 'read',
      mode: live ? 'live' : 'test',
      name: 'cli listen (temporary)',
    });
    try {
      const session = { storeId, live, forwardTo, apiKey: key.key, values };
      const resend = optionalString(values.resend);
      return resend ? await resendOnce(session, resend, env) : await follow(session, env);
    } finally {
      await operator.store.revokeApiKey({ id: key.id });
    }
  },
});

interface ListenSession {
  storeId: number;
  live: boolean;
  forwardTo: string;
  apiKey: string;
  values: Parsed['values'];
}

async function sessionClient(s: ListenSession, env: CommandEnv) {
  const sdk = await import('../../client/src/index.ts');
  const { rememberedSecret } = await import('../../client/src/listen-secrets.ts');
  const given = optionalString(s.values.secret);
  const target = { baseUrl: env.publicUrl, storeId: s.storeId, livemode: s.live, forwardTo: s.forwardTo };
  const kept = given ? undefined : await rememberedSecret(target);
  const client = new sdk.Stockless({ baseUrl: env.publicUrl, apiKey: s.apiKey });
  return { sdk, client, secret: given ?? kept?.secret ?? sdk.developmentSecret(), kept };
}

async function resendOnce(s: ListenSession, id: string, env: CommandEnv) {
  const { sdk, client, secret } = await sessionClient(s, env);
  const f = await sdk.resendEvent(client, id, { forwardTo: s.forwardTo, secret });
  if (!env.json) console.error(sdk.describeForwarded(f));
  if (f.status === undefined || f.status >= 400)
    throw new UsageError(`${id} was not taken by ${s.forwardTo}: ${f.error ?? `HTTP ${f.status}`}`);
  return { event: f.event.event, id: f.event.id, status: f.status };
}

async function follow(s: ListenSession, env: CommandEnv) {
  const { sdk, client, secret, kept } = await sessionClient(s, env);
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const mode = s.live ? 'live' : 'test';
  console.error(`Ready: forwarding store ${s.storeId}'s ${mode} events to ${s.forwardTo} (Ctrl-C to stop)`);
  const where = kept?.file ? ` (${kept.isNew ? 'new, ' : ''}kept in ${kept.file})` : '';
  console.error(`Signing secret: ${secret}${where}`);
  let forwarded = 0;
  await sdk.listen(client, {
    forwardTo: s.forwardTo,
    secret,
    events: optionalString(s.values.events)?.split(','),
    signal: stop.signal,
    onConnection: (c) => console.error(sdk.describeConnection(c)),
    onForward: (f) => {
      forwarded++;
      const line = { event: f.event.event, id: f.event.id, status: f.status ?? null, error: f.error ?? null };
      console.log(env.json ? JSON.stringify(line) : sdk.describeForwarded(f));
    },
  });
  return { store_id: s.storeId, livemode: s.live, forwarded };
}

/** `trigger EVENT --store ID`: makes an event of that kind happen on the store, in test mode. */
export const triggerCommand: CommandDef = command({
  name: 'trigger',
  synopsis: 'EVENT --store ID',
  description: `makes a test event happen on the store (EVENT: ${TRIGGERABLE_EVENTS.join(', ')})`,
  flags: { store: { type: 'string', value: 'ID', help: 'the store' } },
  run: async ({ values, positionals }, env) => {
    const event = TRIGGERABLE_EVENTS.find((e) => e === positionals[0]);
    if (!event) {
      const meant = positionals[0] ? didYouMean(suggest(positionals[0], TRIGGERABLE_EVENTS)) : '';
      throw new UsageError(`trigger: EVENT must be one of ${TRIGGERABLE_EVENTS.join(', ')}.${meant}`);
    }
    return (await env.operator()).sandbox.trigger({ storeId: integer(values.store, '--store'), event });
  },
});
