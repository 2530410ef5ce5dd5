import { isEmpty, seedDemo } from '../src/demo/demo-store.ts';
import { ConfigError, loadConfig } from './config.ts';
import { readDemoCredentials, saveDemoCredentials } from './demo-credentials.ts';
import { loadEnvFile } from './env.ts';
import { createLogger } from './logger.ts';
import { handleSignals, startRuntime } from './runtime.ts';

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
const log = createLogger(config.LOG_LEVEL);
const serve = mode !== 'worker';

const runtime = await startRuntime(config, log, {
  serve,
  work: mode !== 'serve',
  beforeListen: async (orm) => {
    if (!serve || !(await isEmpty(orm.em.fork()))) return;
    log.info({ products: config.DEMO_PRODUCTS }, 'empty database: seeding the demo catalogue and store');
    const creds = await seedDemo(orm.em.fork(), config.DEMO_PRODUCTS);
    if (!config.DATABASE_URL) await saveDemoCredentials(config.DATA_DIR, creds);
    else printKeys(creds.read_write_key, creds.read_key);
  },
});
handleSignals(runtime, log);

function printKeys(readWrite: string, read: string) {
  console.log(`  Demo API key (read_write): ${readWrite}`);
  console.log(`  Demo API key (read):       ${read}`);
}

if (runtime.url) {
  const base = config.PUBLIC_URL ?? runtime.url;
  console.log(`\nStockless is serving at ${base}`);
  console.log(`  Docs:      ${base}/docs`);
  console.log(`  Contract:  ${base}/api/v1/openapi.json`);
  console.log(`  Health:    ${base}/health`);
  const creds = config.DATABASE_URL ? undefined : await readDemoCredentials(config.DATA_DIR);
  if (creds) printKeys(creds.read_write_key, creds.read_key);
  console.log(`  Try: curl -H "Authorization: Bearer <key>" ${base}/api/v1/products?limit=3\n`);
} else {
  log.info('worker running');
}
