// "Did you mean": the closest known names to a mistyped one (edit distance, a swap of two
// neighbouring letters counting as one edit, as typing mistakes go).

/**
 * Edit distance between two strings: insertions, deletions, substitutions, and swaps of two
 * neighbouring characters (optimal string alignment: "wrok" is 1 from "work", not 2).
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      cur[j] = d;
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The known names close enough to `input` to be what was meant, closest first: within a third
 * of the longer name's length (at least 1, at most 3 edits), or one of them starts with the other.
 */
export function closest(input: string, known: Iterable<string>, max = 3): string[] {
  const scored: Array<[string, number]> = [];
  const lower = input.toLowerCase();
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(input.length, k.length) / 3)));
    if (d <= limit || (lower.length >= 3 && k.toLowerCase().startsWith(lower))) scored.push([k, d]);
  }
  return scored
    .sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]))
    .slice(0, max)
    .map(([k]) => k);
}

/** " (did you mean a or b?)", or "" when nothing is close. */
export function didYouMean(input: string, known: Iterable<string>): string {
  const c = closest(input, known);
  if (c.length === 0) return '';
  return ` (did you mean ${c.length === 1 ? c[0] : `${c.slice(0, -1).join(', ')} or ${c[c.length - 1]}`}?)`;
}
