import { describe, expect, it } from 'vitest';
import { PRICE_BANDS, PRICE_SLICES } from '../../src/catalogue/cells.ts';
import { type PriceRange, sliceAround, splitPrice } from '../../src/catalogue/price-ranges.ts';

const within = (r: PriceRange, cents: number) => cents >= r.min && (r.max === undefined || cents < r.max);
const BANDS: readonly number[] = PRICE_BANDS;

/** A small seeded generator, so a failure names a range that can be replayed. */
function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The interval of `edges` holding `cents`: [start, end), end Infinity for the open one. */
function intervalOf(edges: readonly number[], cents: number): [number, number] {
  const i = edges.findLastIndex((edge) => edge <= cents);
  return [edges[i] as number, edges[i + 1] ?? Number.POSITIVE_INFINITY];
}

describe('splitPrice', () => {
  it('answers undefined when both bounds are band edges (the band cells hold the range whole)', () => {
    expect(splitPrice(2_500, 50_000)).toBeUndefined();
    expect(splitPrice(undefined, 100_000)).toBeUndefined();
    expect(splitPrice(undefined, undefined)).toBeUndefined();
    // The slice edges of one band: the slice cells hold it, so a split's slice runs are not split again.
    expect(splitPrice(52_500, 97_500)).toBeUndefined();
    expect(splitPrice(50_000, 57_500)).toBeUndefined();
    expect(splitPrice(47_500, 52_500)).toBeDefined();
    expect(splitPrice(52_500, undefined)).toBeDefined();
    expect(splitPrice(125_000, undefined)).toBeUndefined();
  });

  it('counts whole bands from band cells, whole slices of a partial band from slice cells', () => {
    // [12,345, 87,655): bands [10,000, 100,000) less [10,000, 12,345) and [87,655, 100,000), the
    // larger side of each end band being inside; each of those by slices, less or plus a sliver.
    const split = splitPrice(12_345, 87_655);
    expect(split?.cells).toEqual([
      { range: { min: 10_000, max: 12_500 }, sign: -1 },
      { range: { min: 87_500, max: 100_000 }, sign: -1 },
      { range: { min: 10_000, max: 100_000 }, sign: 1 },
    ]);
    expect(split?.reads).toEqual([
      { range: { min: 12_345, max: 12_500 }, sign: 1 },
      { range: { min: 87_500, max: 87_655 }, sign: 1 },
    ]);
  });

  it('covers exactly the range: cells on band or slice edges, slice runs inside one band, reads at most half a slice', () => {
    const rnd = seeded(27);
    const cents = () => Math.floor(rnd() * 1_200_000);
    for (let n = 0; n < 400; n++) {
      const a = rnd() < 0.15 ? undefined : cents();
      const b = rnd() < 0.15 ? undefined : cents();
      const [min, max] = a !== undefined && b !== undefined && b < a ? [b, a] : [a, b];
      // The catalogue's highest price, when known, judges which side of an end band is narrower.
      const ceiling = rnd() < 0.5 ? undefined : Math.floor(rnd() * 1_500_000);
      const split = splitPrice(min, max, ceiling);
      if (!split) continue;
      const name = `[${min}, ${max}) under ${ceiling}`;
      for (const { range: r } of split.cells) {
        expect(splitPrice(r.min, r.max), `${name}: cells ${JSON.stringify(r)} split again`).toBeUndefined();
      }
      const range: PriceRange = { min: min ?? 0, ...(max === undefined ? {} : { max }) };
      for (const { range: r } of split.cells) {
        const onBands = BANDS.includes(r.min) && (r.max === undefined || BANDS.includes(r.max));
        if (!onBands) {
          expect(PRICE_SLICES, `${name}: cells ${JSON.stringify(r)}`).toContain(r.min);
          const [, bandEnd] = intervalOf(BANDS, r.min);
          expect(r.max ?? Number.POSITIVE_INFINITY, `${name}: slice run within a band`).toBeLessThanOrEqual(
            bandEnd,
          );
        }
      }
      // Widths in cents below the ceiling: above it there are no products to read.
      const width = (lo: number, hi: number) =>
        Math.max(0, Math.min(hi, (ceiling ?? Number.POSITIVE_INFINITY) + 1) - lo);
      for (const { range: r } of split.reads) {
        const [start, end] = intervalOf(PRICE_SLICES, r.min);
        const label = `${name}: read ${JSON.stringify(r)}`;
        expect(r.max ?? Number.POSITIVE_INFINITY, `${label} in one slice`).toBeLessThanOrEqual(end);
        expect(width(start, end), label).toBeGreaterThanOrEqual(
          2 * width(r.min, r.max ?? Number.POSITIVE_INFINITY),
        );
      }
      const probes = [range.min - 1, range.min, range.min + 1, (range.max ?? 2_000_000) - 1, range.max ?? 0];
      for (let k = 0; k < 60; k++) probes.push(Math.floor(rnd() * 1_300_000));
      for (const c of probes.filter((x) => x >= 0)) {
        const counted = [...split.cells, ...split.reads]
          .filter(({ range: r }) => within(r, c))
          .reduce((sum, { sign }) => sum + sign, 0);
        expect(counted, `${c} cents in ${name}`).toBe(within(range, c) ? 1 : 0);
      }
    }
  });
});

describe('sliceAround', () => {
  it('answers the slice holding each read part of a split, on slice edges', () => {
    const rnd = seeded(7);
    for (let i = 0; i < 2_000; i++) {
      const min = Math.floor(rnd() * 1_200_000);
      const max = rnd() < 0.2 ? undefined : min + 1 + Math.floor(rnd() * 300_000);
      for (const { range } of splitPrice(min, max)?.reads ?? []) {
        const slice = sliceAround(range);
        expect(PRICE_SLICES).toContain(slice.min);
        if (slice.max !== undefined) expect(PRICE_SLICES).toContain(slice.max);
        expect(slice.min).toBeLessThanOrEqual(range.min);
        expect(range.max === undefined ? slice.max === undefined : (slice.max ?? Infinity) >= range.max).toBe(
          true,
        );
        expect(PRICE_SLICES.filter((e) => e > slice.min && e < (slice.max ?? Infinity))).toEqual([]);
      }
    }
  });
});
