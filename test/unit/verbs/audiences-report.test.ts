// `audiences upload|sync --report`: the page's contents from a run's record (escaped), the
// rejects file read back (quoted csv), and the paths a report may not take.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRejects, runReportHtml } from '../../../src/commands/audiences/run-report.js';
import { useTestContexts } from '../../helpers/test-context.js';
import { tempDir } from '../../helpers/cli.js';

const tc = useTestContexts();

describe('audiences --report', () => {
  it('reads a rejects file: counts by reason, lists rows with their line numbers, quoted fields whole', () => {
    const dir = tempDir();
    const f = path.join(dir, 'r.csv');
    fs.writeFileSync(
      f,
      'line,column,reason\n3,email,"malformed email, no domain"\n9,email,"malformed email, no domain"\n12,phone,"say ""hi""\nthen"\n',
    );
    const r = readRejects(f);
    expect(r.total).toBe(3);
    expect([...r.byReason]).toEqual([
      ['malformed email, no domain', 2],
      ['say "hi"\nthen', 1],
    ]);
    expect(r.listed[2]).toEqual(['12', 'phone', 'say "hi"\nthen']);
    expect(readRejects(path.join(dir, 'absent.csv')).total).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the page: sizes, summary, throughput points, rejects; service and file text escaped', () => {
    const html = runReportHtml({
      info: { kind: 'upload', accountId: 'a1', audienceId: 'c1', listId: 'c1', input: '<in>.csv' },
      status: 'partial',
      message: 'gave up on batch 3: <b>',
      summary: { read: 10, acknowledged: 6 },
      rejects: { total: 1, byReason: new Map([['<script>', 1]]), listed: [['4', 'email', '<script>']] },
      samples: [
        { ms: 500, read: 10, acknowledged: 2 },
        { ms: 1000, read: 10, acknowledged: 6 },
      ],
      before: 100,
      after: 106,
      startedAt: '2026-05-01T00:00:00.000Z',
    });
    expect(html).not.toMatch(/<script>|<b>|<in>/);
    expect(html).toContain('id="size-before" data-value="100"');
    expect(html).toContain('id="size-after" data-value="106"');
    expect(html).toContain('<tr data-key="acknowledged"><td>acknowledged</td><td>6</td></tr>');
    expect(html).toContain('data-status="partial"');
    expect(html).toContain('<td>4</td><td>email</td><td>&#60;script&#62;</td>');
    expect(
      [...html.matchAll(/data-series="acknowledged" data-label="[^"]+" data-value="(\d+)"/g)].map((m) => m[1]),
    ).toEqual(['2', '6']);
  });

  it('refuses a report over the input or a file of the run, and stdout, before sending anything', async () => {
    const dir = tempDir();
    const input = path.join(dir, 'in.txt');
    fs.writeFileSync(input, 'a@example.com\n');
    for (const [report, words] of [
      [input, /--report .*in\.txt is also a file of this run/],
      ['-', /--report needs a file name/],
    ] as const) {
      const t = tc();
      await expect(
        t.run(['audiences', 'upload', 'c1', input, '--type', 'email', '--dry-run', '--report', report]),
      ).rejects.toThrow(words);
    }
    expect(fs.readFileSync(input, 'utf8')).toBe('a@example.com\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
