// Line charts drawn with text, for a terminal: braille dots (2 x 4 a character cell) where the
// terminal speaks UTF-8, `*` on a character grid where it does not. No command knowledge: the
// caller gives the values, their labels and how to print a value.

export interface ChartSeries {
  /** The heading line, e.g. "impressions · line item 8v7jo". */
  title: string;
  /** One value a bucket, in time order; null is a gap (no line drawn to or from it). */
  values: ReadonlyArray<number | null>;
  /** One label a bucket (its start, in the account's timezone). */
  labels: readonly string[];
  /** How an axis value or the total is written (e.g. "1,234" or "12.34 USD"). */
  format: (v: number) => string;
}

export interface ChartLayout {
  /** Columns the chart may use, the y-axis labels included. */
  width: number;
  /** Rows of the plot area. */
  height: number;
  unicode: boolean;
}

/** Whether the terminal's locale is UTF-8 (LC_ALL, then LC_CTYPE, then LANG, as setlocale reads them). */
export function utf8Locale(env: Record<string, string | undefined>): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return /utf-?8/i.test(locale);
}

/** The sum of the values (gaps count as nothing): what the chart's heading calls the total. */
export function totalOf(values: ReadonlyArray<number | null>): number {
  return values.reduce<number>((a, v) => a + (v ?? 0), 0);
}

// Braille: dot (column c, row r from the top) of a cell is one bit of U+2800 + bits.
const BRAILLE_BITS = [
  [0x01, 0x02, 0x04, 0x40],
  [0x08, 0x10, 0x20, 0x80],
];

/** A dot grid of w x h dots, drawn into character cells of cw x ch dots. */
class Canvas {
  private readonly cells: number[];
  constructor(
    readonly cols: number,
    readonly rows: number,
    private readonly cw: number,
    private readonly ch: number,
  ) {
    this.cells = new Array<number>(cols * rows).fill(0);
  }
  get w(): number {
    return this.cols * this.cw;
  }
  get h(): number {
    return this.rows * this.ch;
  }
  /** y counts from the bottom. */
  set(x: number, y: number): void {
    const row = this.rows - 1 - Math.floor(y / this.ch);
    const col = Math.floor(x / this.cw);
    if (row < 0 || row >= this.rows || col < 0 || col >= this.cols) return;
    const dotRow = this.ch - 1 - (y % this.ch);
    this.cells[row * this.cols + col]! |= this.cw === 2 ? BRAILLE_BITS[x % 2]![dotRow]! : 1;
  }
  line(x0: number, y0: number, x1: number, y1: number): void {
    // Bresenham, every step a dot.
    const dx = Math.abs(x1 - x0);
    const dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1;
    const sy = y0 < y1 ? 1 : -1;
    let err = dx + dy;
    for (;;) {
      this.set(x0, y0);
      if (x0 === x1 && y0 === y1) return;
      const e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }
  row(r: number): string {
    let s = '';
    for (let c = 0; c < this.cols; c++) {
      const bits = this.cells[r * this.cols + c]!;
      s += this.cw === 2 ? (bits ? String.fromCodePoint(0x2800 + bits) : ' ') : bits ? '*' : ' ';
    }
    return s;
  }
}

/** The x of bucket i of n on a grid w dots wide. */
const xOf = (i: number, n: number, w: number) =>
  n === 1 ? Math.floor((w - 1) / 2) : Math.round((i * (w - 1)) / (n - 1));

/**
 * The chart as lines (no colour, no control characters): the heading with the total, the plot
 * from the smallest to the largest value (both labelled on the y axis), then the first and the
 * last bucket's labels.
 */
export function lineChart(s: ChartSeries, layout: ChartLayout): string[] {
  const present = s.values.filter((v): v is number => v !== null);
  const max = present.length ? Math.max(...present) : 0;
  const min = present.length ? Math.min(...present) : 0;
  const top = s.format(max);
  const bottom = max === min ? '' : s.format(min); // a flat series: one value, labelled once
  const labelW = Math.max(top.length, bottom.length);
  const axis = layout.unicode
    ? { tick: '┤', bar: '│', origin: '└', rule: '─' }
    : { tick: '+', bar: '|', origin: '+', rule: '-' };
  const cols = Math.max(4, layout.width - labelW - 2);
  const rows = Math.max(2, layout.height);
  const canvas = layout.unicode ? new Canvas(cols, rows, 2, 4) : new Canvas(cols, rows, 1, 1);
  // The axis spans the data (its two ends are labelled), so a trend fills the plot; a flat series
  // is a line across the middle.
  const yOf = (v: number) =>
    max === min ? Math.floor((canvas.h - 1) / 2) : Math.round(((v - min) * (canvas.h - 1)) / (max - min));
  const n = s.values.length;
  let prev: [number, number] | undefined;
  for (let i = 0; i < n; i++) {
    const v = s.values[i];
    if (v === null || v === undefined) {
      prev = undefined;
      continue;
    }
    const p: [number, number] = [xOf(i, n, canvas.w), yOf(v)];
    if (prev) canvas.line(prev[0], prev[1], p[0], p[1]);
    else canvas.set(p[0], p[1]);
    prev = p;
  }
  const lines = [`${s.title} · total ${s.format(totalOf(s.values))} over ${n} bucket${n === 1 ? '' : 's'}`];
  for (let r = 0; r < rows; r++) {
    const label = r === 0 ? top : r === rows - 1 ? bottom : '';
    const mark = r === 0 || r === rows - 1 ? axis.tick : axis.bar;
    lines.push(`${label.padStart(labelW)} ${mark}${canvas.row(r)}`.trimEnd());
  }
  lines.push(`${' '.repeat(labelW)} ${axis.origin}${axis.rule.repeat(cols)}`);
  lines.push(`${' '.repeat(labelW + 2)}${xLabels(s.labels, cols)}`.trimEnd());
  return lines;
}

/** The first and the last label under the plot, the last one right-aligned, when both fit. */
function xLabels(labels: readonly string[], cols: number): string {
  const first = labels[0] ?? '';
  const last = labels.length > 1 ? labels[labels.length - 1]! : '';
  if (!last) return first.slice(0, cols);
  if (first.length + last.length + 1 > cols) return first.slice(0, cols);
  return first + last.padStart(cols - first.length);
}
