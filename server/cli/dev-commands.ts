import { WEBHOOK_EVENTS } from '../../src/webhooks/events.ts';
import { integer, optionalString, requireString, UsageError } from './args.ts';
import { type CommandDef, command } from './command.ts';

/** Every event but `webhook.ping`, which a subscription's own test call sends. */
const TRIGGERABLE = WEBHOOK_EVENTS.filter((e) => e !== 'webhook.ping');

/**
 * `listen`: the store's events, as they happen, POSTed to a local URL and signed as real deliveries
 * (the SDK's `listen` over the events API's long poll). It reads with a key of its own, made for the
 * session and revoked when it stops: test mode unless `--live`.
 */
export const listenCommand: CommandDef = command({
  name: 'listen',
  synopsis: '--store ID --forward-to URL [--events a,b] [--live] [--secret whsec_…]',
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
      help: 'the signing secret to use (default: a new one, printed)',
    },
  },
  run: async ({ values }, env) => {
    const storeId = integer(values.store, '--store');
    const forwardTo = requireString(values, 'forward-to');
    if (!URL.canParse(forwardTo) || !/^https?:$/.test(new URL(forwardTo).protocol))
      throw new UsageError(`--forward-to ${forwardTo}: expected an http:// or https:// URL`);
    const { developmentSecret, describeForwarded, listen, Stockless } = await import(
      '../../client/src/index.ts'
    );
    const operator = await env.operator();
    const mode = values.live ? 'live' : 'test';
    const key = await operator.store.createApiKey({
      storeId,
      scope: 'read',
      mode,
      name: 'cli listen (temporary)',
    });
    const secret = optionalString(values.secret) ?? developmentSecret();
    const stop = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
    console.error(`Ready: forwarding store ${storeId}'s ${mode} events to ${forwardTo} (Ctrl-C to stop)`);
    console.error(`Signing secret: ${secret}`);
    let forwarded = 0;
    try {
      await listen(new Stockless({ baseUrl: env.publicUrl, apiKey: key.key }), {
        forwardTo,
        secret,
        events: optionalString(values.events)?.split(','),
        signal: stop.signal,
        onForward: (f) => {
          forwarded++;
          const line = {
            event: f.event.event,
            id: f.event.id,
            status: f.status ?? null,
            error: f.error ?? null,
          };
          console.log(env.json ? JSON.stringify(line) : describeForwarded(f));
        },
      });
    } finally {
      await operator.store.revokeApiKey({ id: key.id });
    }
    return { store_id: storeId, livemode: mode === 'live', forwarded };
  },
});

/** `trigger EVENT --store ID`: makes an event of that kind happen on the store, in test mode. */
export const triggerCommand: CommandDef = command({
  name: 'trigger',
  synopsis: 'EVENT --store ID',
  description: `makes a test event happen on the store (EVENT: ${TRIGGERABLE.join(', ')})`,
  flags: { store: { type: 'string', value: 'ID', help: 'the store' } },
  run: async ({ values, positionals }, env) => {
    const event = TRIGGERABLE.find((e): e is Exclude<typeof e, 'webhook.ping'> => e === positionals[0]);
    if (!event) throw new UsageError(`trigger: EVENT must be one of ${TRIGGERABLE.join(', ')}`);
    return (await env.operator()).sandbox.trigger({ storeId: integer(values.store, '--store'), event });
  },
});
