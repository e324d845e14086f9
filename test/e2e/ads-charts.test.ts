// Charts against a real sandbox: a week of simulated delivery (manual clock), then
// `ads stats --chart` in a pseudo-terminal (script) whose drawn totals equal the service's TOTAL
// granularity, the same command piped (the data, no chart), and `ads report -o json` whose days
// and totals equal the service's DAY and TOTAL answers. The HTML itself is read back in
// test/browser/ads-report.test.ts.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, useTestSandbox, xctl } from '../helpers/cli.js';
import type { AdsReport } from '../../src/commands/ads/report.js';
import { reportWeek } from '../helpers/ads-report.js';

const t = useTestSandbox({ clock: 'manual' });

/**
 * `xctl ...` under script(1): stdout is a terminal of 80 columns in the given locale. Spawned
 * asynchronously: the sandbox answers from this process's event loop.
 */
function inTerminal(args: string[], locale: string): Promise<{ code: number | null; out: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) env[k] = v;
  Object.assign(env, t.env, { COLUMNS: '80', LANG: locale, LC_ALL: locale, TERM: 'xterm', NO_COLOR: '1' });
  delete env.CI;
  const cmd = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out: out.replace(/\r\n/g, '\n') })));
}

const json = async <T>(args: string[]): Promise<T> => {
  const r = await t.run(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

describe('ads stats --chart and ads report against the sandbox', () => {
  it('the drawn totals equal the TOTAL query, at 80 columns, UTF-8 and ASCII; piped prints the data', async () => {
    const w = await reportWeek(t);
    const range = xctl`--start ${w.start} --end ${w.end}`;
    const total = await json<Array<Record<string, number>>>(
      xctl`ads stats --entity CAMPAIGN --ids ${w.campaign} ${range} --granularity TOTAL -o json`,
    );
    for (const locale of ['C.UTF-8', 'C']) {
      const r = await inTerminal(xctl`ads stats --entity CAMPAIGN --ids ${w.campaign} ${range} --chart`, locale);
      expect(r.code, r.out).toBe(0);
      for (const line of r.out.trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
      expect(r.out).toContain('times in America/New_York; money in USD');
      const drawn = (metric: string) =>
        new RegExp(`^${metric} · ${w.campaign} · total ([\\d,.]+)(?: USD)? over 7 buckets$`, 'm').exec(r.out)?.[1];
      expect(drawn('impressions')).toBe(total[0]!.impressions!.toLocaleString('en-US'));
      expect(drawn('engagements')).toBe(total[0]!.engagements!.toLocaleString('en-US'));
      // Cents rounded half up, in integers (a float's toFixed would round 349.965 down).
      const cents = (BigInt(total[0]!.billed_charge_local_micro!) + 5000n) / 10000n;
      expect(drawn('billed spend')).toBe(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`);
      if (locale === 'C') expect(r.out).toMatch(/^[\x20-\x7e\n·]*$/);
      else expect(r.out).toMatch(/[\u2800-\u28ff]/);
    }
    const piped = await t.run(xctl`ads stats --entity CAMPAIGN --ids ${w.campaign} ${range} --chart`);
    expect(piped.code).toBe(0);
    expect(piped.stdout.trimEnd().split('\n')).toHaveLength(7); // one tsv row a day
    expect(piped.stderr).toContain('--chart draws on a terminal only');
  });

  it('ads report -o json: each day equals the DAY answer, each total the TOTAL answer, line items included', async () => {
    const w = await reportWeek(t);
    const range = xctl`--start ${w.start} --end ${w.end}`;
    const report = await json<AdsReport>(xctl`ads report --campaign-ids ${w.campaign} ${range} -o json`);
    expect(report.account).toMatchObject({ timezone: 'America/New_York', currency: 'USD' });
    expect(report.days).toHaveLength(7);
    const c = report.campaigns[0]!;
    expect(c.line_items.length).toBeGreaterThan(0);
    for (const [entity, e] of [['CAMPAIGN', c] as const, ...c.line_items.map((l) => ['LINE_ITEM', l] as const)]) {
      const day = await json<Array<Record<string, number>>>(
        xctl`ads stats --entity ${entity} --ids ${e.id} ${range} -o json`,
      );
      const tot = await json<Array<Record<string, number>>>(
        xctl`ads stats --entity ${entity} --ids ${e.id} ${range} --granularity TOTAL -o json`,
      );
      for (const m of ['impressions', 'engagements', 'clicks', 'billed_charge_local_micro'] as const) {
        expect(e.daily[m], `${entity} ${e.id} ${m}`).toEqual(day.map((d) => d[m]));
        expect(e.total[m]).toBe(tot[0]![m]);
        expect(e.total[m]).toBe(e.daily[m].reduce<number>((a, v) => a + (v ?? 0), 0));
      }
    }
    expect(report.requests[0]).toBe(`GET /12/accounts/${t.sb.seed.account_id}`);
  });

  it('a campaign the account does not have: exit 1 naming it', async () => {
    const r = await t.run(xctl`ads report --campaign-ids nosuch1 --start 2026-05-01 --end 2026-05-03 -o json`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no campaign nosuch1 in account');
  });
});
