import { Stockless } from '@stockless/sdk';

/** The client every example uses: STOCKLESS_URL (default http://localhost:3000) and STOCKLESS_API_KEY. */
export function clientFromEnv(): Stockless {
  const apiKey = process.env.STOCKLESS_API_KEY;
  if (!apiKey) {
    console.error('Set STOCKLESS_API_KEY to a key `npm start` printed (the read_write one).');
    process.exit(1);
  }
  return new Stockless({ baseUrl: process.env.STOCKLESS_URL ?? 'http://localhost:3000', apiKey });
}
