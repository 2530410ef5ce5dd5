import { TRPCError } from '@trpc/server';
import { AppError } from '../../src/errors.ts';
import { createCaller } from '../../src/router.ts';
import type { DomainSettings } from '../../src/trpc/context.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import { ConfigError, domainSettingsOf, loadConfig } from '../config.ts';
import { loadEnvFile } from '../env.ts';
import { createLogger } from '../logger.ts';
import { migrateDirect, type Orm, openOrm } from '../orm.ts';
import { newRequestId } from '../request-id.ts';
import { connectDatabase } from '../runtime.ts';
import { resolveSecretKey } from '../secret-key.ts';
import type { Parsed } from './args.ts';
import type { CommandDef, CommandEnv } from './command.ts';

// Loaded only to run a command: help and usage errors never read the configuration, open the
// database or load the domains (so they answer at once, on a machine with none of them).

/** The operator acts through the same internal procedures as the dashboard, with the same validation. */
function operator(orm: Orm, settings: DomainSettings) {
  const token = `cli_${newRequestId()}_${newRequestId()}`;
  return createCaller({
    em: orm.em.fork(),
    requestId: newRequestId(),
    headers: { authorization: `Bearer ${token}` },
    settings: { ...settings, operatorToken: token },
    log: createLogger('silent'),
  }).internal;
}

/** Runs a command with its parsed arguments and prints its result: JSON with --json, else its format. */
export async function execute(def: CommandDef, args: Parsed, json: boolean): Promise<void> {
  loadEnvFile();
  const loaded = loadConfig();
  const config = { ...loaded, SECRET_KEY: await resolveSecretKey(loaded) };
  const settings = domainSettingsOf(config);
  let orm: Orm | undefined;
  let stopDb: (() => Promise<void>) | undefined;
  const open = async () => {
    if (orm) return orm;
    const db = await connectDatabase(config, createLogger('silent'));
    stopDb = db.stop;
    orm = await openOrm(db.url, 4);
    await migrateDirect(orm, db.url, config.DATABASE_DIRECT_URL);
    return orm;
  };
  const env: CommandEnv = {
    json,
    publicUrl: settings.publicUrl,
    orm: open,
    operator: async () => operator(await open(), settings),
  };
  try {
    const result = await def.run(args, env);
    if (json) console.log(JSON.stringify(result));
    else console.log(def.format ? def.format(result) : JSON.stringify(result, null, 2));
  } finally {
    await orm?.close(true);
    await stopDb?.();
  }
}

/** A command's failure as the contract's `{ error, message }`, the message on one line. */
export function describeFailure(err: unknown): { category: string; message: string } {
  // A procedure's failure comes wrapped by tRPC; a service called directly throws the AppError itself.
  if (err instanceof TRPCError || err instanceof AppError) {
    const { body } = shapeError(err);
    const details = body.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
    return { category: body.error, message: details ? `${body.message} (${details})` : body.message };
  }
  // "Invalid configuration:\n  PORT: …\n  DATA_DIR: …" → "Invalid configuration: PORT: …; DATA_DIR: …".
  if (err instanceof ConfigError) {
    const [head = '', ...issues] = err.message.split('\n').map((l) => l.trim());
    return { category: 'server_error', message: `${head} ${issues.join('; ')}`.trim() };
  }
  return {
    category: 'server_error',
    message: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err),
  };
}
