import { integer } from './args.ts';
import { type CommandDef, command } from './command.ts';
import { table } from './output.ts';

const storeFlag = { store: { type: 'string', value: 'ID', help: 'the store id' } } as const;

type Rows<K extends string> = { [key in K]: Record<string, unknown>[] };

// Read-only views for operators: stores, a store's keys and its webhook subscriptions.

export const storesList: CommandDef = command({
  name: 'stores:list',
  synopsis: '',
  description: 'lists every store with how many products it lists',
  flags: {},
  run: async (_args, env) => (await env.operator()).store.list({}),
  format: (result) =>
    table(
      (result as Rows<'stores'>).stores,
      ['id', 'name', 'slug', 'listings_count', 'created_at'],
      'No stores.',
    ),
});

export const keysList: CommandDef = command({
  name: 'keys:list',
  synopsis: '--store ID',
  description: "lists a store's API keys, revoked ones too (prefix only, never the key)",
  flags: storeFlag,
  run: async ({ values }, env) =>
    (await env.operator()).store.listApiKeys({ storeId: integer(values.store, '--store') }),
  format: (result) =>
    table(
      (result as Rows<'keys'>).keys,
      ['id', 'name', 'prefix', 'scope', 'mode', 'created_at', 'last_used_at', 'revoked_at'],
      'No API keys.',
    ),
});

export const webhooksList: CommandDef = command({
  name: 'webhooks:list',
  synopsis: '--store ID',
  description: "lists a store's webhook subscriptions with their failure streaks (never the secret)",
  flags: storeFlag,
  run: async ({ values }, env) =>
    (await env.operator()).webhooks.list({ storeId: integer(values.store, '--store') }),
  format: (result) =>
    table(
      (result as Rows<'webhooks'>).webhooks,
      ['id', 'url', 'events', 'active', 'failure_streak', 'disabled_reason', 'created_at'],
      'No webhook subscriptions.',
    ),
});
