import { describe, expect, it } from 'vitest';
import { PAGE_WALK, walkAgain, walkLength } from '../../src/catalogue/page-ids.ts';
import { listInput } from '../../src/catalogue/schemas.ts';

const page = (n: number, limit = 20) => ({
  input: listInput.parse({ page: n, limit }),
  offset: String((n - 1) * limit),
});

describe('walkLength', () => {
  it('walks PAGE_WALK.entries when the table was never estimated or nothing matches', () => {
    const { input, offset } = page(3);
    expect(walkLength(input, offset, 5_000, 0)).toEqual({ walk: PAGE_WALK.entries });
    expect(walkLength(input, offset, 0, 2_000_000)).toEqual({ walk: PAGE_WALK.entries });
  });

  it('walks twice the even spread of the reach, between PAGE_WALK.entries and PAGE_WALK.most', () => {
    // Half the catalogue matches: page 3 (reach 60) lies ~120 entries in; the least walk serves.
    expect(walkLength(page(3).input, page(3).offset, 1_000_000, 2_000_000)).toEqual({
      walk: PAGE_WALK.entries,
    });
    // One in 50 matches: page 45 (reach 900) lies ~45,000 entries in.
    expect(walkLength(page(45).input, page(45).offset, 40_000, 2_000_000)).toEqual({ walk: 90_000 });
    // Page 80 (reach 1,600) lies ~80,000 entries in: twice that passes the cap.
    expect(walkLength(page(80).input, page(80).offset, 40_000, 2_000_000)).toEqual({ walk: PAGE_WALK.most });
  });

  it('reads the matches at once when even their even spread puts the page past PAGE_WALK.most', () => {
    // 10,000 matches in 2M: page 40 (reach 800) lies ~160,000 entries in.
    expect(walkLength(page(40).input, page(40).offset, 10_000, 2_000_000)).toBe('matches');
    expect(walkLength(page(1).input, page(1).offset, 100, 2_000_000)).toBe('matches');
  });
});

describe('walkAgain', () => {
  it('walks twice as far as the first walk’s density puts the reach, at most PAGE_WALK.most', () => {
    // 30,000 entries found 450 of page 34's reach of 680: ~45,334 entries needed.
    expect(walkAgain(page(34).input, page(34).offset, 30_000, 450)).toEqual({ walk: 90_668 });
    // 100 found: the reach lies ~204,000 entries in, past PAGE_WALK.most.
    expect(walkAgain(page(34).input, page(34).offset, 30_000, 100)).toBe('matches');
    // 250 found: ~81,600 entries, twice that capped.
    expect(walkAgain(page(34).input, page(34).offset, 30_000, 250)).toEqual({ walk: PAGE_WALK.most });
  });

  it('reads the matches when the first walk found none', () => {
    expect(walkAgain(page(2).input, page(2).offset, 30_000, 0)).toBe('matches');
  });
});
