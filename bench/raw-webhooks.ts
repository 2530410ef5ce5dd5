import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';

/**
 * The baseline of the webhook bench: a bare undici POST loop, `CONCURRENCY` at a time over keep-alive
 * connections, sending `COUNT` times the same request the engine sends (its envelope as BODY, its
 * header set as HEADERS, signed once) to the same receiver. Prints deliveries/s.
 */
const url = process.env.TARGET_URL ?? '';
const count = Number(process.env.COUNT);
const concurrency = Number(process.env.CONCURRENCY);
const body = process.env.BODY ?? '{}';
const headers = JSON.parse(process.env.HEADERS ?? '{}') as Record<string, string>;
const pin = process.env.PIN_ADDRESS;
const pinned: LookupFunction = (_host, options, callback) => {
  if (options.all) callback(null, [{ address: pin ?? '', family: 4 }]);
  else callback(null, pin ?? '', 4);
};
const agent = new Agent({
  connect: { ca: readFileSync(process.env.CA_FILE ?? '', 'utf8'), ...(pin ? { lookup: pinned } : {}) },
});

let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next++;
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      await res.body.dump();
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(JSON.stringify({ deliveries: count, seconds, per_second: count / seconds }));
await agent.close();
