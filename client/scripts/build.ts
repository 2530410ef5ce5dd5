/**
 * Builds the SDK to client/dist (ESM + .d.ts), what `npm pack ./client` ships:  npm run build:sdk
 *
 * tsc emits into client/.build, which replaces client/dist only once the build is whole, so a failed
 * build never leaves half a dist to be packed. The dashboard client (src/trpc.ts) is not built: its
 * types are the server's app router, which the package cannot carry (see tsconfig.build.json).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(CLIENT, '..');
const STAGE = resolve(CLIENT, '.build');
const DIST = resolve(CLIENT, 'dist');

/** `'./client.ts'` → `'./client.js'` in relative specifiers (`from '…'`, `import('…')`). */
const TS_SPECIFIER = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)(?<!\.d)\.ts\2/g;

/**
 * tsc rewrites the `.ts` specifiers of the emitted JS but not of the declarations. TypeScript 5+
 * accepts them there, yet older compilers and some editors do not: point them at the `.js` files,
 * beside which the `.d.ts` files sit.
 */
function rewriteDeclarations(dir: string) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(TS_SPECIFIER, '$1$2$3.js$2');
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

rmSync(STAGE, { recursive: true, force: true });
const tsc = spawnSync(
  resolve(ROOT, 'node_modules/.bin/tsc'),
  ['-p', resolve(CLIENT, 'tsconfig.build.json')],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
if (tsc.status !== 0) {
  rmSync(STAGE, { recursive: true, force: true });
  process.exit(tsc.status ?? 1);
}
if (!existsSync(resolve(STAGE, 'index.js'))) throw new Error(`tsc wrote nothing to ${STAGE}`);
rewriteDeclarations(STAGE);
// The `stockless-listen` bin: npm marks it executable on install, a direct run from dist needs it too.
chmodSync(resolve(STAGE, 'listen-cli.js'), 0o755);
rmSync(DIST, { recursive: true, force: true });
renameSync(STAGE, DIST);
console.log('built client/dist');
