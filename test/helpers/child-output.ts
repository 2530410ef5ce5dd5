import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** How a child process ended, with everything it printed. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Collects a spawned process's output until it closes (or fails to start). */
export function childOutput(child: ChildProcess & { stdout: Readable; stderr: Readable }): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code: number | null) => done({ code, stdout, stderr }));
  });
}
