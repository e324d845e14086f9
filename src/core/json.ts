// JSON that never changes a number it received. The service's 64-bit ids (stats jobs' `id`,
// 19 digits) do not fit a double: JSON.parse rounds them. Integers beyond 2^53 become bigint
// here and are printed back digit for digit. The ordinary answer (no 16-digit number) costs a
// regex test or two more than JSON.parse; printing costs nothing unless a bigint is present.
// (JSON.parse's reviver `context.source` would do this natively, but not on Node 20.)

/**
 * A number beyond 2^53 has at least 16 digits in a row, right after `:`, `[` or `,` (and
 * whitespace). Ids in strings ("1120845642591662080", "3_1120845642591662080") follow a quote or
 * an underscore, so the usual answer takes JSON.parse alone; a string that happens to match only
 * costs the careful path below, which is exact too.
 */
const MAYBE_BIG = /[:[,]\s*-?\d{16}/;
/** The cheap test first: most answers have no run of 16 digits at all. */
const DIGITS_16 = /\d{16}/;
/**
 * A string token (skipped whole) or an integer token of 16 digits or more: not the fraction or
 * exponent of another number (lookbehind), not followed by its own fraction or exponent.
 */
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g;
const MAX_SAFE = String(Number.MAX_SAFE_INTEGER);
/** Marks a bigint while it passes through JSON.parse/JSON.stringify as a string. */
const MARK = `@xctl-int-${Math.random().toString(36).slice(2, 12)}:`;
const MARKED = new RegExp(`"${MARK}(-?\\d+)"`, 'g');

function isSafe(token: string): boolean {
  const digits = token.charCodeAt(0) === 45 ? token.slice(1) : token;
  return digits.length < 16 || (digits.length === 16 && digits <= MAX_SAFE);
}

function revive(_key: string, v: unknown): unknown {
  return typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v;
}

/** JSON.parse, except that integers beyond 2^53 are bigints holding every digit. Throws as JSON.parse. */
export function parseJson(text: string): unknown {
  if (!DIGITS_16.test(text) || !MAYBE_BIG.test(text)) return JSON.parse(text);
  let big = false;
  const marked = text.replace(TOKEN, (m) => {
    if (m.charCodeAt(0) === 34 || isSafe(m)) return m;
    big = true;
    return `"${MARK}${m}"`;
  });
  return big ? JSON.parse(marked, revive) : JSON.parse(text);
}

function mark(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? MARK + v.toString() : v;
}

/** JSON.stringify, except that a bigint is written as the JSON number it holds. */
export function stringifyJson(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (e) {
    // "Do not know how to serialize a BigInt" (a cycle throws again below, as it should).
    if (!(e instanceof TypeError)) throw e;
  }
  return JSON.stringify(value, mark, indent).replace(MARKED, '$1');
}
