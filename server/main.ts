import { type DemoCredentials, isEmpty, seedDemo } from '../src/demo/demo-store.ts';
import { ConfigError, loadConfig } from './config.ts';
import { readDemoCredentials, saveDemoCredentials } from './demo-credentials.ts';
import { loadEnvFile } from './env.ts';
import { createLogger } from './logger.ts';
import { handleSignals, startRuntime } from './runtime.ts';
import { explainStartError } from './start-errors.ts';

/**
 * `npm start` (API + worker), `npm run serve` (API only), `npm run worker` (worker only).
 * On an empty database the API seeds a demo catalogue and store.
 */
const mode = process.argv[2] ?? 'all';
if (!['all', 'serve', 'worker'].includes(mode)) {
  console.error(`usage: main.ts [all|serve|worker]`);
  process.exit(2);
}

loadEnvFile();
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(2);
}
const log = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
const serve = mode !== 'worker';

const runtime = await startRuntime(config, log, {
  serve,
  work: mode !== 'serve',
  beforeListen: async (orm) => {
    if (!serve || !(await isEmpty(orm.em.fork()))) return;
    log.info({ products: config.DEMO_PRODUCTS }, 'empty database: seeding the demo catalogue and store');
    const creds = await seedDemo(orm.em.fork(), config.DEMO_PRODUCTS);
    if (!config.DATABASE_URL) await saveDemoCredentials(config.DATA_DIR, creds);
    else printKeys(creds);
  },
}).catch(exitOnSetupError);
handleSignals(runtime, log);

/**
 * A setup the operator must change (a busy PORT, SECRET_KEY, a DATA_DIR nobody can write, a
 * DATABASE_URL that cannot be reached): one line naming the setting, no stack.
 */
function exitOnSetupError(err: unknown): never {
  const reason = err instanceof ConfigError ? err.message : explainStartError(err, config);
  if (reason === undefined) throw err;
  console.error(reason);
  process.exit(2);
}

function printKeys(creds: DemoCredentials) {
  console.log(`  Demo store: ${creds.store_id}`);
  console.log(`  Demo API key (read_write): ${creds.read_write_key}`);
  console.log(`  Demo API key (read):       ${creds.read_key}`);
  if (creds.test_key) console.log(`  Demo API key (test mode):  ${creds.test_key}`);
}

if (runtime.url) {
  const base = config.PUBLIC_URL ?? runtime.url;
  console.log(`\nStockless is serving at ${base}`);
  console.log(`  Docs:      ${base}/docs`);
  console.log(`  Contract:  ${base}/api/v1/openapi.json`);
  console.log(`  Health:    ${base}/health`);
  if (runtime.cluster?.relocated)
    console.log(`  Database:  ${runtime.cluster.dir} (${config.DATA_DIR}/pg links to it)`);
  const creds = config.DATABASE_URL ? undefined : await readDemoCredentials(config.DATA_DIR);
  if (creds) {
    printKeys(creds);
    // The CLI finds the API from the same settings: a command to paste names any that differ.
    const port = new URL(runtime.url).port;
    const where = config.PUBLIC_URL
      ? `PUBLIC_URL=${config.PUBLIC_URL} `
      : port !== '3000'
        ? `PORT=${port} `
        : '';
    console.log(
      `  Webhooks on localhost: ${where}npm run cli -- listen --store ${creds.store_id} --forward-to http://localhost:4242/webhooks`,
    );
  }
  console.log(`  Try: curl -H "Authorization: Bearer <key>" ${base}/api/v1/products?limit=3\n`);
} else {
  log.info('worker running');
}
