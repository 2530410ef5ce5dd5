import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const NODE = resolve(ROOT, 'node_modules/.bin/node');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real operator CLI as a child process against the given database. */
export function runCli(databaseUrl: string, ...args: string[]): Promise<CliRun> {
  return new Promise((done, fail) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
    // The child must not inherit the harness's own settings.
    delete env.OPERATOR_TOKEN;
    delete env.PORT;
    const child = execFile(
      NODE,
      ['server/cli/main.ts', ...args],
      { cwd: ROOT, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return fail(error);
        done({ code: child.exitCode ?? (error?.code as number) ?? 0, stdout, stderr });
      },
    );
  });
}
