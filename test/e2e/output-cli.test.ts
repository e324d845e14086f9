// Output options end to end (issue 20, items 5, 6, 18): the real CLI against a real sandbox, its
// three seeded line items read one per page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';

interface LineItem {
  id: string;
  name: string;
}

let t: AdsSandbox;
beforeAll(async () => {
  t = await startAdsSandbox();
});
afterAll(() => t.close());

const ok = async (args: string[]) => {
  const r = await t.run(args);
  expect(r.code, `xctl ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
};

describe('output options against the sandbox', () => {
  it('--jq with --all runs over every page', async () => {
    const all = await t.json<LineItem[]>(['ads', 'line-items', 'list', '--all']);
    expect(all.length).toBe(3);
    const r = await ok(['ads', 'line-items', 'list', '--count', '1', '--all', '--jq', '.[].id']);
    expect(r.stdout).toBe(all.map((x) => `${x.id}\n`).join(''));
    const n = await ok(['ads', 'line-items', 'list', '--count', '1', '--all', '--jq', 'length']);
    expect(n.stdout).toBe('3\n');
  });

  it('--include-cursor: following next_cursor with --cursor reads every record once', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const r = await ok([
        'ads',
        'line-items',
        'list',
        '--count',
        '1',
        '-o',
        'json',
        '--include-cursor',
        ...(cursor ? ['--cursor', cursor] : []),
      ]);
      const page = JSON.parse(r.stdout) as { data: Array<{ id: string }>; next_cursor: string | null };
      ids.push(...page.data.map((x) => x.id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    expect(cursor).toBeNull();
    expect(ids.length).toBe(3);
    expect(new Set(ids).size).toBe(3);
    const l = await ok([
      'ads',
      'line-items',
      'list',
      '--count',
      '1',
      '-o',
      'jsonl',
      '--include-cursor',
      '--fields',
      'id',
    ]);
    const lines = l.stdout
      .trimEnd()
      .split('\n')
      .map((x) => JSON.parse(x));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual({ next_cursor: expect.any(String) });
  });

  it('a bad --jq program is exit 2 with nothing sent', async () => {
    const r = await t.refused(['ads', 'line-items', 'list', '--jq', '.[] | select(']);
    // --jq makes the output JSON, so the error is JSON too (issue 33).
    expect((JSON.parse(r.stderr.trim()) as { error: { message: string } }).error.message).toMatch(
      /^--jq: syntax error/,
    );
  });

  it('request honours -o tsv / csv, --fields and --jq', async () => {
    const path = `/12/accounts/${t.sb.seed.account_id}/line_items`;
    const all = await t.json<LineItem[]>(['ads', 'line-items', 'list', '--all']);
    const tsv = await ok(['request', '--ads', path, '-o', 'tsv', '--fields', 'id,name']);
    expect(tsv.stdout).toBe(all.map((x) => `${x.id}\t${x.name}\n`).join(''));
    const csv = await ok(['request', '--ads', path, '-o', 'csv', '--fields', 'id']);
    expect(csv.stdout).toBe(all.map((x) => `${x.id}\r\n`).join(''));
    const jq = await ok(['request', '--ads', path, '--jq', '.data | length']);
    expect(jq.stdout).toBe('3\n');
    const json = await ok(['request', '--ads', path, '--json', 'id']);
    expect(JSON.parse(json.stdout)).toEqual(all.map((x) => ({ id: x.id })));
    await t.refused(['request', '--ads', path, '--raw', '--jq', '.']);
  });
});
