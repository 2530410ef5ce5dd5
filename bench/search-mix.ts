import { ADJECTIVES, CATEGORIES, MATERIALS } from '../src/demo/taxonomy.ts';
import { quantile, round, timedGet } from './lib.ts';

/**
 * The search a partner's shoppers type: `count` queries drawn from the catalogue's own vocabulary, a
 * quarter each of broad one-word terms, two-word terms, typos (a letter dropped, so full text finds
 * nothing and the substring fallback runs) and SKU fragments. Deterministic for a given count.
 */
export function searchQueries(count: number): string[] {
  const nouns = CATEGORIES.flatMap(([, , , , words]) => words);
  const words = [...ADJECTIVES, ...MATERIALS, ...nouns].map((w) => w.toLowerCase());
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed;
  };
  const pick = <T>(xs: readonly T[]) => xs[next() % xs.length] as T;
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const kind = i % 4;
    if (kind === 0) out.push(pick(words));
    else if (kind === 1)
      out.push(`${pick([...ADJECTIVES, ...MATERIALS]).toLowerCase()} ${pick(nouns).toLowerCase()}`);
    else if (kind === 2) {
      const w = pick(words.filter((x) => x.length >= 5));
      const at = 1 + (next() % (w.length - 2));
      out.push(w.slice(0, at) + w.slice(at + 1));
    } else {
      // The start of a real SKU (`SL-` and seven digits), seven to nine characters long.
      const sku = `SL-${String(1 + (next() % 2_000_000)).padStart(7, '0')}`;
      out.push(sku.slice(0, 7 + (next() % 3)));
    }
  }
  return out;
}

export const searchUrl = (q: string) => `/api/v1/products?limit=20&search=${encodeURIComponent(q)}`;

/** Each query once on each side, the side asked first alternating; p50 and p99 over the queries. */
export async function benchSearchMix(
  queries: string[],
  bases: { api: string; raw: string },
  headers: Record<string, string>,
) {
  const api: number[] = [];
  const raw: number[] = [];
  // A query either side answers with an error (the API's 503 past its statement budget, a raw replay
  // past the same budget) is counted apart, not timed: it has no latency to put beside the other's.
  const failed: { side: 'api' | 'raw'; query: string; error: string }[] = [];
  for (const [i, q] of queries.entries()) {
    const sides = i % 2 === 0 ? (['api', 'raw'] as const) : (['raw', 'api'] as const);
    for (const side of sides) {
      try {
        (side === 'api' ? api : raw).push(await timedGet(bases[side] + searchUrl(q), headers));
      } catch (err) {
        failed.push({ side, query: q, error: String(err) });
      }
    }
  }
  return {
    queries: queries.length,
    api_p50_ms: round(quantile(api, 0.5)),
    api_p99_ms: round(quantile(api, 0.99)),
    raw_p50_ms: round(quantile(raw, 0.5)),
    raw_p99_ms: round(quantile(raw, 0.99)),
    api_failed: failed.filter((f) => f.side === 'api').length,
    raw_failed: failed.filter((f) => f.side === 'raw').length,
    failed,
  };
}
