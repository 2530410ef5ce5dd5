import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { recordEvents } from '../../src/events/outbox.ts';
import { webhookFanOut } from '../../src/webhooks/fanout.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { childOutput, type Ran } from '../helpers/child-output.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * `npm run example -- <name>`: the examples run with the project's Node 24 (the machine's `node` may
 * be older, and `node examples/x.ts` then fails on the `.ts` file) against the SDK's sources.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = readdirSync(join(ROOT, 'examples'))
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'shared.ts'].includes(f))
  .map((f) => f.slice(0, -3));

/** Exactly the README's command, from the repository root. */
function npmRunExample(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const child = spawn('npm', ['run', 'example', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return childOutput(child);
}

describe('npm run example', () => {
  it('lists the examples and exits non-zero for a name that is none of them', async () => {
    expect(EXAMPLES).toEqual(
      expect.arrayContaining(['inventory-sync', 'marketplace-order', 'webhook-receiver']),
    );
    const ran = await npmRunExample(['no-such-example']);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('No example named "no-such-example".');
    expect(ran.stderr).toContain('Usage: npm run example -- <name> [arguments]');
    for (const name of EXAMPLES) expect(ran.stderr).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    // Neither the runner nor the shared helper is offered as an example.
    expect(ran.stderr).not.toMatch(/^ {2}(run|shared)\b/m);
    expect(ran.stderr).not.toContain('    at '); // no stack
  });

  it('lists them too without a name (non-zero) and for --help (zero)', async () => {
    const bare = await npmRunExample([]);
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('Name an example to run.');
    expect(bare.stderr).toContain('  inventory-sync ');
    const help = await npmRunExample(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('  marketplace-order ');
  });

  describe('inventory-sync against a server', () => {
    let app: TestApp;
    let dir: string;
    beforeAll(async () => {
      app = await startTestApp();
      dir = await mkdtemp(join(tmpdir(), 'stockless-example-'));
    });
    afterAll(async () => {
      await app?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('prints the listed product, saves the cursor, and the next run resumes from it', async () => {
      const store = await app.createStore('Example Store');
      const f = fixtures(app.em());
      const supplierId = await f.supplier({ name: 'Example Supplier' });
      const productId = await f.product({ supplierId, sku: 'EX-SYNC-1', name: 'Synced Lamp', stock: [7] });
      await f.listing(store.id, productId);
      const cursorFile = join(dir, 'cursor');
      const env = {
        STOCKLESS_URL: app.url,
        STOCKLESS_API_KEY: store.readWrite,
        INVENTORY_CURSOR_FILE: cursorFile,
      };

      // A change is readable once every older transaction has ended: a run may come too early (and
      // then says 0 changes); the next resumes from its cursor.
      let seen = '';
      for (let attempt = 0; attempt < 10 && !seen.includes('EX-SYNC-1'); attempt++) {
        const ran = await npmRunExample(['inventory-sync'], env);
        expect(ran.code, ran.stderr).toBe(0);
        expect(ran.stdout).toMatch(/\d+ change\(s\); cursor saved to /);
        seen += ran.stdout;
      }
      expect(seen).toMatch(/EX-SYNC-1 +7 in stock +Synced Lamp/);
      expect(existsSync(cursorFile)).toBe(true);
      const cursor = (await readFile(cursorFile, 'utf8')).trim();

      const again = await npmRunExample(['inventory-sync'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`0 change(s); cursor saved to ${cursorFile}`);
      expect(again.stdout).not.toContain('EX-SYNC-1');
      expect((await readFile(cursorFile, 'utf8')).trim()).toBeTruthy();
      expect(cursor).toBeTruthy();
    });
  });

  describe('events-catch-up against a server', () => {
    let app: TestApp;
    let dir: string;
    beforeAll(async () => {
      app = await startTestApp();
      dir = await mkdtemp(join(tmpdir(), 'stockless-events-example-'));
    });
    afterAll(async () => {
      await app?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('prints the store’s events from the log, saves the cursor, and the next run has none', async () => {
      const store = await app.createStore('Events Example');
      await app
        .em()
        .transactional((tx) =>
          recordEvents(tx, [
            { storeId: store.id, event: 'site.published', entityId: store.id, data: { store_id: store.id } },
          ]),
        );
      await dispatchPendingEvents(app.em(), webhookFanOut(60_000));
      const cursorFile = join(dir, 'cursor');
      const env = { STOCKLESS_URL: app.url, STOCKLESS_API_KEY: store.read, EVENTS_CURSOR_FILE: cursorFile };
      let seen = '';
      for (let attempt = 0; attempt < 10 && !seen.includes('site.published'); attempt++) {
        const ran = await npmRunExample(['events-catch-up'], env);
        expect(ran.code, ran.stderr).toBe(0);
        expect(ran.stdout).toMatch(/\d+ events; cursor saved to /);
        seen += ran.stdout;
      }
      expect(seen).toMatch(/evt_\d+ +site\.published/);
      const again = await npmRunExample(['events-catch-up'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`0 events; cursor saved to ${cursorFile}`);
    });
  });
});
