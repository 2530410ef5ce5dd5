/**
 * Builds the SDK to client/dist (ESM + .d.ts):  npm run build:sdk
 *
 * tsc emits into client/.build with the repository as its root: the dashboard client's type-only
 * import of the app router (src/router.ts) pulls the server's sources into the program, and a
 * narrower rootDir would make tsc write their output beside them. Only client/src's output is kept,
 * moved to client/dist; dist sits as deep as src, so the declarations' relative import of the
 * router still resolves inside this repository.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(CLIENT, '..');
const STAGE = resolve(CLIENT, '.build');
const DIST = resolve(CLIENT, 'dist');

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
const built = resolve(STAGE, 'client/src');
if (!existsSync(resolve(built, 'index.js'))) throw new Error(`tsc wrote nothing to ${built}`);
rmSync(DIST, { recursive: true, force: true });
renameSync(built, DIST);
rmSync(STAGE, { recursive: true, force: true });
console.log('built client/dist');
