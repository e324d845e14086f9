// Self-contained HTML reports: one file, inline CSS and SVG, no script and no network (a strict
// Content-Security-Policy says so to the browser too). Every value drawn is also written as a
// data attribute, so a test (or a person with the inspector) reads the exact numbers back.
// Everything from the service or a file is escaped: a campaign named `<script>` stays text.

/** Text for HTML element content and attribute values. */
export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface Series {
  /** Shown in the legend; also data-series. */
  name: string;
  values: ReadonlyArray<number | null>;
}

export interface LineChartSpec {
  title: string;
  /** data-metric of each point. */
  metric: string;
  /** One label a point (the x axis). */
  labels: readonly string[];
  series: readonly Series[];
  format: (v: number) => string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2026-11-29" -> "Nov 29" on the axis; any other label as it is. */
function shortDate(label: string | undefined): string {
  const m = /^\d{4}-(\d{2})-(\d{2})$/.exec(label ?? '');
  return m ? `${MONTHS[Number(m[1]) - 1]} ${Number(m[2])}` : (label ?? '');
}

const PALETTE = ['#1d6fd8', '#d8531d', '#2a9d4b', '#8a3ffc', '#c2185b', '#00838f', '#6d4c41', '#f9a825'];
const W = 640;
const H = 220;
const PAD = { left: 72, right: 16, top: 16, bottom: 36 };

/** An SVG line chart: one polyline a series, a circle a point carrying its value. */
export function svgLineChart(c: LineChartSpec): string {
  const all = c.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = all.length ? Math.max(...all) : 0;
  const min = Math.min(0, ...all);
  const n = c.labels.length;
  const x = (i: number) =>
    PAD.left + (n <= 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (n - 1));
  const y = (v: number) =>
    max === min ? H - PAD.bottom : PAD.top + ((max - v) * (H - PAD.top - PAD.bottom)) / (max - min);
  const parts: string[] = [];
  parts.push(
    `<line class="axis" x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}"/>`,
    `<line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}"/>`,
    `<text class="tick" x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end">${esc(c.format(max))}</text>`,
    `<text class="tick" x="${PAD.left - 6}" y="${H - PAD.bottom + 4}" text-anchor="end">${esc(c.format(min))}</text>`,
  );
  const step = Math.max(1, Math.ceil(n / 8));
  for (let i = 0; i < n; i += step) {
    const anchor = n > 1 && i === 0 ? 'start' : i + step >= n && n > 1 ? 'end' : 'middle';
    parts.push(
      `<text class="tick" x="${x(i).toFixed(1)}" y="${H - 12}" text-anchor="${anchor}">${esc(shortDate(c.labels[i]))}</text>`,
    );
  }
  c.series.forEach((s, k) => {
    const color = PALETTE[k % PALETTE.length]!;
    let path = '';
    let pen = false;
    s.values.forEach((v, i) => {
      if (v === null) {
        pen = false;
        return;
      }
      path += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    parts.push(`<path d="${path}" stroke="${color}" fill="none" stroke-width="2"/>`);
    s.values.forEach((v, i) => {
      if (v === null) return;
      parts.push(
        `<circle class="point" cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${color}"` +
          ` data-metric="${esc(c.metric)}" data-series="${esc(s.name)}" data-label="${esc(c.labels[i])}"` +
          ` data-value="${esc(v)}"><title>${esc(`${s.name} · ${c.labels[i]}: ${c.format(v)}`)}</title></circle>`,
      );
    });
  });
  const legend = c.series
    .map((s, k) => `<span class="key"><i style="background:${PALETTE[k % PALETTE.length]}"></i>${esc(s.name)}</span>`)
    .join(' ');
  return (
    `<figure class="chart" data-metric="${esc(c.metric)}"><figcaption>${esc(c.title)}</figcaption>` +
    `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(c.title)}">${parts.join('')}</svg>` +
    `<div class="legend">${legend}</div></figure>`
  );
}

/** A table: the header row, then rows of cells already formatted (escaped here). */
export function htmlTable(head: readonly string[], rows: ReadonlyArray<readonly unknown[]>, cls = ''): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`).join('\n');
  return `<table class="${esc(cls)}"><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1000px;color:#1b1f24;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.meta{color:#57606a;margin:0 0 16px}.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:12px}
figure.chart{margin:0;border:1px solid #d0d7de;border-radius:6px;padding:8px}figcaption{font-weight:600;margin-bottom:4px}
svg{width:100%;height:auto}.axis{stroke:#8c959f;stroke-width:1}.tick{font-size:11px;fill:#57606a}
.legend{font-size:12px;color:#57606a}.key{margin-right:12px;white-space:nowrap}.key i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
table{border-collapse:collapse;width:100%;margin:8px 0;font-variant-numeric:tabular-nums}th,td{border-bottom:1px solid #eaeef2;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f6f8fa}tr.total td{font-weight:600}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}details{margin-top:16px}
`;

/** The whole page. No script; the policy forbids loading anything. */
export function htmlPage(title: string, body: string): string {
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>` +
    `<style>${CSS}</style></head><body>\n${body}\n</body></html>\n`
  );
}
