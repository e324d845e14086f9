// "Did you mean": the edit distance (optimal string alignment: a swap of neighbouring letters is
// one edit) against its published examples and an independent recursive definition, and the
// suggestions it gives for the typing mistakes people make.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../src/core/suggest.js';

/** The textbook recursion, memoised: a second implementation to judge the table-filling one. */
function osa(a: string, b: string): number {
  const memo = new Map<string, number>();
  const d = (i: number, j: number): number => {
    if (i === 0) return j;
    if (j === 0) return i;
    const key = `${i},${j}`;
    const seen = memo.get(key);
    if (seen !== undefined) return seen;
    let v = Math.min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d(i - 2, j - 2) + 1);
    memo.set(key, v);
    return v;
  };
  return d(a.length, b.length);
}

describe('editDistance', () => {
  it.each([
    ['kitten', 'sitting', 3], // Levenshtein's classic
    ['flaw', 'lawn', 2],
    ['wrok', 'work', 1], // a swap is one edit
    ['ca', 'abc', 3], // OSA, not full Damerau (2): a swapped pair is not edited again
    ['', 'abc', 3],
    ['same', 'same', 0],
  ])('%s -> %s = %i', (a, b, want) => {
    expect(editDistance(a, b)).toBe(want);
    expect(editDistance(b, a)).toBe(want);
  });

  it('equals the recursive definition on random strings of a small alphabet', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 9 });
    fc.assert(
      fc.property(word, word, (a, b) => editDistance(a, b) === osa(a, b)),
      { numRuns: 2000 },
    );
  });
});

describe('didYouMean', () => {
  it('a swapped pair of letters is suggested; what is far is not', () => {
    expect(didYouMean('wrok', ['work', 'worker', 'list'])).toBe(' (did you mean work?)');
    expect(closest('lsit', ['list', 'get'])).toEqual(['list']);
    expect(didYouMean('zzzz', ['work', 'list'])).toBe('');
  });
});
