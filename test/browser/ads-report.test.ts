// `xctl ads report` rendered in a real browser (Debian's Chromium): every point of every chart
// and every total row, read back from the page, equals the service's own DAY and TOTAL answers
// (asked with `xctl ads stats -o json`); the page loads nothing from outside; a screenshot is
// kept in test-output/ as the report's picture.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir, useTestSandbox, xctl } from '../helpers/cli.js';
import { haveChromium, launchChromium, warnIfMissing } from '../helpers/chromium.js';
import { reportWeek } from '../helpers/ads-report.js';

warnIfMissing('the ads report');
const OUT = path.join(ROOT, 'test-output');
const t = useTestSandbox({ clock: 'manual' });

interface Point {
  metric: string;
  series: string;
  label: string;
  value: number;
}

describe('ads report in a real browser', () => {
  (haveChromium ? it : it.skip)(
    haveChromium
      ? "every chart point and total on the page equals the service's DAY and TOTAL numbers"
      : 'SKIPPED: /usr/bin/chromium is not installed',
    async () => {
      const w = await reportWeek(t);
      const dir = tempDir('xctl-report-');
      const profile = tempDir('xctl-chromium-');
      t.dirs.push(dir, profile);
      const file = path.join(dir, 'report.html');
      const range = xctl`--start ${w.start} --end ${w.end}`;
      const made = await t.run(xctl`ads report --campaign-ids ${w.campaign} ${range} --out ${file}`);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toContain(`wrote ${file}`);

      const lineItems = JSON.parse(
        (await t.run(xctl`ads line-items list --campaign-ids ${w.campaign} --json id`)).stdout,
      ) as Array<{ id: string }>;
      const entities = [['CAMPAIGN', w.campaign], ...lineItems.map((l) => ['LINE_ITEM', l.id])] as const;
      const expected = new Map<string, { day: Array<Record<string, number>>; total: Record<string, number> }>();
      for (const [entity, id] of entities) {
        const day = JSON.parse((await t.run(xctl`ads stats --entity ${entity} --ids ${id} ${range} -o json`)).stdout);
        const total = JSON.parse(
          (await t.run(xctl`ads stats --entity ${entity} --ids ${id} ${range} --granularity TOTAL -o json`)).stdout,
        )[0];
        expected.set(id, { day, total });
      }

      const context = await launchChromium(profile);
      const requested: string[] = [];
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        page.on('request', (r) => requested.push(r.url()));
        await page.goto(`file://${file}`);
        const points = await page.$$eval('circle.point', (els) =>
          els.map((e) => ({
            metric: e.getAttribute('data-metric')!,
            series: e.getAttribute('data-series')!,
            label: e.getAttribute('data-label')!,
            value: Number(e.getAttribute('data-value')),
          })),
        );
        const totals = await page.$$eval('tr.total', (els) =>
          els.map((e) => ({
            id: e.getAttribute('data-entity')!,
            impressions: Number(e.getAttribute('data-impressions')),
            engagements: Number(e.getAttribute('data-engagements')),
            clicks: Number(e.getAttribute('data-clicks')),
            billed_charge_local_micro: Number(e.getAttribute('data-spend-micro')),
          })),
        );
        // 3 charts for the campaigns, 3 for the line items: 7 days each series.
        const metrics = ['billed_charge_local_micro', 'impressions', 'engagements'];
        expect(points).toHaveLength(metrics.length * 7 * (1 + lineItems.length));
        for (const p of points as Point[]) {
          const id = /\(([a-z0-9]+)\)$/.exec(p.series)![1]!;
          const e = expected.get(id)!;
          const i = (await reportDays(w.start)).indexOf(p.label);
          expect(p.value, `${id} ${p.metric} ${p.label}`).toBe(e.day[i]![p.metric]);
        }
        expect(totals.map((x) => x.id).sort()).toEqual(entities.map(([, id]) => id).sort());
        for (const x of totals) {
          const e = expected.get(x.id)!.total;
          for (const m of ['impressions', 'engagements', 'clicks', 'billed_charge_local_micro'] as const)
            expect(x[m], `${x.id} ${m}`).toBe(e[m]);
        }
        expect(await page.locator('p.meta').textContent()).toContain('days in America/New_York · money in USD');
        fs.mkdirSync(OUT, { recursive: true });
        await page.screenshot({ path: path.join(OUT, 'ads-report.png'), fullPage: true });
      } finally {
        await context.close();
      }
      expect(requested).toEqual([`file://${file}`]); // nothing loaded from anywhere else
      expect(fs.statSync(path.join(OUT, 'ads-report.png')).size).toBeGreaterThan(10_000);
    },
    120_000,
  );
});

describe('audiences upload --report in a real browser', () => {
  (haveChromium ? it : it.skip)(
    haveChromium
      ? "the page's sizes, acknowledged count and rejected lines equal the service's and the file's"
      : 'SKIPPED: /usr/bin/chromium is not installed',
    async () => {
      const dir = tempDir('xctl-report-');
      const profile = tempDir('xctl-chromium-');
      t.dirs.push(dir, profile);
      const made = await t.run(xctl`audiences create --name ${'Report audience'} --json`);
      const id = (JSON.parse(made.stdout) as { id: string }).id;
      const lines = ['email,name'];
      for (let i = 0; i < 6000; i++) lines.push(`person${i}@example.com,P${i}`);
      lines.splice(101, 0, 'not-an-email,x'); // line 102
      lines.splice(4001, 0, 'two@@example.com,y'); // line 4002
      const input = path.join(dir, 'crm.csv');
      fs.writeFileSync(input, `${lines.join('\n')}\n`);
      const report = path.join(dir, 'upload.html');
      const size = async () =>
        (JSON.parse((await t.run(xctl`audiences get ${id} --json audience_size`)).stdout) as { audience_size: number })
          .audience_size;
      const before = await size();
      const r = await t.run(
        xctl`audiences upload ${id} ${input} --column email=email --batch-size 500 --concurrency 1 --report ${report} --json`,
      );
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout) as { acknowledged: number; rejected: number };
      expect(summary).toMatchObject({ acknowledged: 6000, rejected: 2 });
      expect(r.stderr).toContain(`written to ${path.join(dir, 'upload.rejects.csv')}`);
      const after = await size();

      const context = await launchChromium(profile);
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(`file://${report}`);
        const value = async (sel: string) => Number(await page.locator(sel).getAttribute('data-value'));
        expect(await value('#size-before')).toBe(before);
        expect(await value('#size-after')).toBe(after);
        expect(after - before).toBe(6000);
        expect(await page.locator('tr[data-key="acknowledged"] td').nth(1).textContent()).toBe('6000');
        const acked = await page.$$eval('circle.point[data-series="acknowledged"]', (els) =>
          els.map((e) => Number(e.getAttribute('data-value'))),
        );
        expect(acked.at(-1)).toBe(6000); // the last sample is taken when the run ends
        expect(acked).toEqual([...acked].sort((a, b) => a - b));
        const rejected = await page.$$eval('table.rejects tbody tr', (rows) =>
          rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)),
        );
        expect(rejected.map((x) => x[0])).toEqual(['102', '4002']);
        fs.mkdirSync(OUT, { recursive: true });
        await page.screenshot({ path: path.join(OUT, 'audience-upload-report.png'), fullPage: true });
      } finally {
        await context.close();
      }
    },
    120_000,
  );
});

/** The seven days from start, as the report labels them. */
async function reportDays(start: string): Promise<string[]> {
  const { daysBetween } = await import('../../src/commands/ads/report.js');
  const end = new Date(Date.parse(start) + 7 * 86_400_000).toISOString().slice(0, 10);
  return daysBetween(start, end);
}
