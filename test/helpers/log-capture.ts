import { Writable } from 'node:stream';

/** A stream for the logger to write to, that keeps what would be printed. */
export function capture() {
  const lines: string[] = [];
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const parts = (partial + String(chunk)).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
      done();
    },
  });
  return Object.assign(stream, {
    lines,
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  });
}
