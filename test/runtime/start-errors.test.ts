import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_SECRET_KEY } from '../helpers/app.ts';
import { withDatabase } from '../helpers/global-setup.ts';

/**
 * `npm start` is often a newcomer's first command: a setup they must change (a busy port, a database
 * that cannot be reached, a DATA_DIR that cannot hold one) ends the process with status 2 and one line
 * that names the setting, never a Node stack trace.
 */
const run = promisify(execFile);

let busy: Server;
let busyPort: number;

beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const address = busy.address();
  busyPort = typeof address === 'object' && address ? address.port : 0;
});
afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

/** Starts `server/main.ts <mode>` with `env`, and answers how it ended and what it printed. */
async function start(mode: 'all' | 'serve', env: Record<string, string>) {
  try {
    const out = await run(process.execPath, ['server/main.ts', mode], {
      env: { ...process.env, SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...env },
      timeout: 60_000,
    });
    return { code: 0, output: `${out.stdout}${out.stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** One line, naming `setting`, no stack frames. */
function expectOneLine(output: string, setting: string) {
  const lines = output.trim().split('\n');
  expect(lines, output).toHaveLength(1);
  expect(lines[0]).toContain(setting);
  expect(output).not.toMatch(/\n\s+at /);
}

describe('a start that cannot succeed says which setting to change', () => {
  it('a busy port: PORT', async () => {
    const adminUrl = inject('pgAdminUrl');
    const r = await start('serve', {
      PORT: String(busyPort),
      DATABASE_URL: withDatabase(adminUrl, 'postgres'),
    });
    expect(r.code).toBe(2);
    expectOneLine(r.output, `Port ${busyPort} is already in use`);
    expect(r.output).toContain('set PORT');
  });

  it('a database nobody listens for: DATABASE_URL', async () => {
    const r = await start('serve', { PORT: '0', DATABASE_URL: 'postgres://u:p@127.0.0.1:1/stockless' });
    expect(r.code).toBe(2);
    expectOneLine(r.output, 'Cannot reach the database at 127.0.0.1:1/stockless');
    expect(r.output).toContain('DATABASE_URL');
  });

  it("a wrong password, without repeating it: DATABASE_URL's user or password", async () => {
    const url = new URL(inject('pgAdminUrl'));
    url.password = 'not-the-password-4711';
    const r = await start('serve', { PORT: '0', DATABASE_URL: url.toString() });
    expect(r.code).toBe(2);
    expectOneLine(r.output, "refused DATABASE_URL's user or password");
    expect(r.output).not.toContain('not-the-password-4711');
  });

  it('a database that does not exist: DATABASE_URL', async () => {
    const r = await start('serve', {
      PORT: '0',
      DATABASE_URL: withDatabase(inject('pgAdminUrl'), 'no_such_database_4711'),
    });
    expect(r.code).toBe(2);
    expectOneLine(r.output, 'does not exist');
    expect(r.output).toContain('DATABASE_URL');
  });

  it('a DATABASE_URL that is not one', async () => {
    const r = await start('serve', { PORT: '0', DATABASE_URL: 'localhost:5432/stockless' });
    expect(r.code).toBe(2);
    expect(r.output).toContain('DATABASE_URL: must be a postgres:// URL');
    expect(r.output).not.toMatch(/\n\s+at /);
  });

  it('a DATA_DIR that is a file: DATA_DIR', async () => {
    const file = join(tmpdir(), `stockless-data-dir-${process.pid}`);
    writeFileSync(file, 'not a folder');
    const r = await start('all', { PORT: '0', DATA_DIR: file, DATABASE_URL: '' });
    expect(r.code).toBe(2);
    expectOneLine(r.output, `DATA_DIR "${file}" cannot hold the embedded database`);
  });
});
