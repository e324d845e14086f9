// -o csv and --header (issue 20, item 16), --jq and `--json FIELDS` as global options (item 18),
// and `xctl request` honouring -o, --fields and --jq (item 6): exact output, in-process.
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { printList, printOne } from '../../src/core/output.js';
import { buildProgram, loadGroups, normalizeArgs } from '../../src/program.js';
import { HttpRegistry, json, route, text } from '../helpers/http-registry.js';
import { useTestContexts } from '../helpers/test-context.js';

const tc = useTestContexts();

const recs = [
  { id: '1', name: 'Plain', note: null },
  { id: '2', name: 'Comma, "quoted"\nand a newline', note: '=SUM(A1)' },
];

describe('-o csv and --header', () => {
  it('csv: RFC 4180 quoting, CRLF line ends; a leading = is data (no spreadsheet prefix)', async () => {
    const t = tc();
    await printList(t.ctx.io, { format: 'csv' }, recs, { columns: ['id', 'name', 'note'] });
    expect(t.stdout()).toBe('1,Plain,\r\n2,"Comma, ""quoted""\nand a newline",=SUM(A1)\r\n');
  });

  it('--header: a first row of column names for csv and tsv, also with no records', async () => {
    const c = tc();
    await printList(c.ctx.io, { format: 'csv', header: true }, recs.slice(0, 1), { columns: ['id', 'name'] });
    expect(c.stdout()).toBe('id,name\r\n1,Plain\r\n');
    const t = tc();
    await printList(t.ctx.io, { header: true, fields: ['name', 'id'] }, recs.slice(0, 1));
    expect(t.stdout()).toBe('name\tid\nPlain\t1\n');
    const e = tc();
    await printList(e.ctx.io, { format: 'tsv', header: true }, [], { columns: ['id', 'name'] });
    expect(e.stdout()).toBe('id\tname\n');
    const one = tc();
    await printOne(one.ctx.io, { format: 'csv', header: true }, recs[1]!, { columns: ['id', 'note'] });
    expect(one.stdout()).toBe('id,note\r\n2,=SUM(A1)\r\n');
  });

  it('csv can be the profile default (config set output csv)', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/2/webhooks'), json({ data: [{ id: '1', url: 'https://e.x/a,b', valid: true }] }));
    const t = tc({ transport: reg });
    await t.run(['config', 'set', 'output', 'csv']);
    await t.run(['webhooks', 'list']);
    expect(t.stdout()).toContain('1,"https://e.x/a,b",valid,\r\n');
  });

  it('-o csv --header through a command; micros stay micros', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/12/accounts/acct1/campaigns'),
      json({ data: [{ id: 'c1', name: 'A, B', daily_budget_amount_local_micro: 49500000 }], next_cursor: null }),
    );
    const t = tc({ transport: reg });
    await t.run([
      'ads',
      'campaigns',
      'list',
      '-o',
      'csv',
      '--header',
      '--fields',
      'id,name,daily_budget_amount_local_micro',
    ]);
    expect(t.stdout()).toBe('id,name,daily_budget_amount_local_micro\r\nc1,"A, B",49500000\r\n');
  });
});

describe('--jq', () => {
  const twoPages = (reg: HttpRegistry) => {
    reg.register(
      route('GET', '/12/accounts/acct1/campaigns'),
      json({ data: [{ id: 'c1', name: 'One' }], next_cursor: 'n2' }),
    );
    reg.register(
      route('GET', '/12/accounts/acct1/campaigns', { query: { cursor: 'n2' } }),
      json({ data: [{ id: 'c2', name: 'Two' }], next_cursor: null }),
    );
  };

  it('runs over every page with --all; strings print raw, other values as jq prints them', async () => {
    const reg = new HttpRegistry();
    twoPages(reg);
    const t = tc({ transport: reg });
    await t.run(['ads', 'campaigns', 'list', '--all', '--jq', '.[].id']);
    expect(t.stdout()).toBe('c1\nc2\n');
    reg.verify();
    const reg2 = new HttpRegistry();
    twoPages(reg2);
    const n = tc({ transport: reg2 });
    await n.run(['ads', 'campaigns', 'list', '--all', '--jq', 'map({id}) | {count: length, first: .[0]}']);
    expect(n.stdout()).toBe('{\n  "count": 2,\n  "first": {\n    "id": "c1"\n  }\n}\n');
  });

  it('sees {data, next_cursor} with --include-cursor, and a single record as an object', async () => {
    const reg = new HttpRegistry();
    twoPages(reg);
    const t = tc({ transport: reg });
    await t.run(['ads', 'campaigns', 'list', '--include-cursor', '--jq', '.next_cursor']);
    expect(t.stdout()).toBe('n2\n');
    const one = tc();
    await printOne(one.ctx.io, { jq: '.name' }, { id: '7', name: 'Seven' });
    expect(one.stdout()).toBe('Seven\n');
  });

  it("a bad program: exit 2 with jq's message, before anything is sent", async () => {
    const reg = new HttpRegistry();
    const t = tc({ transport: reg });
    const e = await t
      .run(['ads', 'campaigns', 'list', '--jq', '.[] | map('])
      .catch((x: unknown) => x as Error & { exitCode: number });
    expect(e).toMatchObject({ exitCode: 2 });
    expect((e as Error).message).toMatch(/^--jq: syntax error, unexpected end of file/);
    expect(reg.requests).toEqual([]);
  });

  it('a runtime error is exit 2 too; -o table with --jq is refused before sending', async () => {
    const one = tc();
    await expect(printOne(one.ctx.io, { jq: '.name.first' }, { name: 'x' })).rejects.toMatchObject({
      exitCode: 2,
      message: '--jq: Cannot index string with string ("first")',
    });
    const reg = new HttpRegistry();
    const t = tc({ transport: reg });
    await expect(t.run(['ads', 'campaigns', 'list', '-o', 'table', '--jq', '.'])).rejects.toThrow(
      '--jq filters the JSON output: it cannot be combined with -o table',
    );
    expect(reg.requests).toEqual([]);
  });

  it("on a terminal, control characters in jq's raw strings are made visible", async () => {
    const t = tc({ tty: true });
    await printOne(t.ctx.io, { jq: '.name' }, { name: 'a\u001b[31mb' });
    expect(t.stdout()).toBe('a\\u001b[31mb\n');
  });

  it('is shown in --help with the other global options', () => {
    const help = buildProgram('0').helpInformation();
    for (const o of [
      '--jq <expr>',
      '--json [fields]',
      '--include-cursor',
      '--header-row',
      '"table", "json", "jsonl", "tsv", "csv"',
    ])
      expect(help).toContain(o);
  });
});

describe('--json FIELDS', () => {
  it('selects the fields and implies json', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/2/webhooks'),
      json({ data: [{ id: '1', url: 'https://e.x/h', valid: true, created_at: '2026-01-01T00:00:00.000Z' }] }),
    );
    const t = tc({ tty: true, transport: reg });
    await t.run(['webhooks', 'list', '--json', 'id,url']);
    expect(JSON.parse(t.stdout())).toEqual([{ id: '1', url: 'https://e.x/h' }]);
  });

  it('never swallows a command name or an argument the command still needs', () => {
    const p = new Command('xctl');
    p.option('--json [fields]');
    const ads = p.command('ads');
    const c = ads.command('campaigns');
    c.command('get').argument('<id>');
    c.command('list');
    expect(normalizeArgs(p, ['--json', 'ads', 'campaigns', 'list'])).toEqual(['--json=', 'ads', 'campaigns', 'list']);
    expect(normalizeArgs(p, ['ads', 'campaigns', 'get', '--json', 'abcde'])).toEqual([
      'ads',
      'campaigns',
      'get',
      '--json=',
      'abcde',
    ]);
    expect(normalizeArgs(p, ['ads', 'campaigns', 'get', 'abcde', '--json', 'id,name'])).toEqual([
      'ads',
      'campaigns',
      'get',
      'abcde',
      '--json=id,name',
    ]);
    expect(normalizeArgs(p, ['ads', 'campaigns', 'list', '--json', 'id'])).toEqual([
      'ads',
      'campaigns',
      'list',
      '--json=id',
    ]);
    expect(normalizeArgs(p, ['ads', 'campaigns', 'list', '--json'])).toEqual(['ads', 'campaigns', 'list', '--json']);
    expect(normalizeArgs(p, ['ads', 'campaigns', 'list', '--json', '--all'])).toEqual([
      'ads',
      'campaigns',
      'list',
      '--json',
      '--all',
    ]);
  });

  it('with --fields as well is refused (one way to choose fields)', async () => {
    const reg = new HttpRegistry();
    const t = tc({ transport: reg });
    await expect(t.run(['webhooks', 'list', '--json', 'id', '--fields', 'url'])).rejects.toThrow(
      '--json FIELDS and --fields both choose the fields: give one',
    );
  });
});

describe('xctl request', () => {
  const answer = {
    data: [
      { id: '1', url: 'https://e.x/a', valid: true },
      { id: '2', url: 'https://e.x/b', valid: false },
    ],
    meta: { result_count: 2 },
  };
  const stub = (reg: HttpRegistry) => reg.register(route('GET', '/2/webhooks'), json(answer));

  it('-o tsv / csv / --fields print the records of the answer (its data)', async () => {
    const reg = new HttpRegistry();
    stub(reg);
    const t = tc({ transport: reg });
    await t.run(['request', '/2/webhooks', '-o', 'tsv', '--fields', 'id,valid']);
    expect(t.stdout()).toBe('1\ttrue\n2\tfalse\n');
    const reg2 = new HttpRegistry();
    stub(reg2);
    const c = tc({ transport: reg2 });
    await c.run(['request', '/2/webhooks', '-o', 'csv']);
    expect(c.stdout()).toBe('1,https://e.x/a,true\r\n2,https://e.x/b,false\r\n');
  });

  it('-o table on a terminal; --fields alone gives json of those fields', async () => {
    const reg = new HttpRegistry();
    stub(reg);
    const t = tc({ tty: true, transport: reg });
    await t.run(['request', '/2/webhooks', '-o', 'table']);
    expect(t.stdout()).toBe(
      [
        '┌────┬───────────────┬───────┐',
        '│ id │ url           │ valid │',
        '├────┼───────────────┼───────┤',
        '│ 1  │ https://e.x/a │ true  │',
        '│ 2  │ https://e.x/b │ false │',
        '└────┴───────────────┴───────┘',
        '',
      ].join('\n'),
    );
    const reg2 = new HttpRegistry();
    stub(reg2);
    const f = tc({ transport: reg2 });
    await f.run(['request', '/2/webhooks', '--json', 'id']);
    expect(JSON.parse(f.stdout())).toEqual([{ id: '1' }, { id: '2' }]);
  });

  it('--jq runs over the whole answer; without output flags the answer prints as JSON', async () => {
    const reg = new HttpRegistry();
    stub(reg);
    const t = tc({ transport: reg });
    await t.run(['request', '/2/webhooks', '--jq', '.meta.result_count, .data[].url']);
    expect(t.stdout()).toBe('2\nhttps://e.x/a\nhttps://e.x/b\n');
    const reg2 = new HttpRegistry();
    stub(reg2);
    const j = tc({ transport: reg2 });
    await j.run(['request', '/2/webhooks']);
    expect(JSON.parse(j.stdout())).toEqual(answer);
  });

  it('request --header is still its HTTP header (the global --header is the tsv/csv row)', async () => {
    const reg = new HttpRegistry();
    stub(reg);
    const t = tc({ transport: reg });
    await t.run(['request', '/2/webhooks', '--header', 'X-Test: b', '-o', 'tsv', '--fields', 'id']);
    expect(reg.requests[0]!.headers['x-test']).toBe('b');
    expect(t.stdout()).toBe('1\n2\n');
    // issue 29 item 2: `-o csv --header` on request asks for an HTTP header; --header-row is the row
    const reg2 = new HttpRegistry();
    stub(reg2);
    const c = tc({ transport: reg2 });
    await expect(c.run(['request', '/2/webhooks', '-o', 'csv', '--header'])).rejects.toMatchObject({ exitCode: 1 });
    await c.run(['request', '/2/webhooks', '-o', 'csv', '--fields', 'id', '--header-row']);
    expect(c.stdout()).toBe('id\r\n1\r\n2\r\n');
  });

  it('--header is --header-row on a command without its own --header (before or after the command)', async () => {
    const program = buildProgram('0');
    await loadGroups(program, ['ads', 'request']);
    expect(normalizeArgs(program, ['ads', 'campaigns', 'list', '--header'])).toEqual([
      'ads',
      'campaigns',
      'list',
      '--header-row',
    ]);
    expect(normalizeArgs(program, ['--header', 'ads', 'campaigns', 'list'])).toEqual([
      '--header-row',
      'ads',
      'campaigns',
      'list',
    ]);
    expect(normalizeArgs(program, ['request', '/x', '--header', 'A: b'])).toEqual([
      'request',
      '/x',
      '--header',
      'A: b',
    ]);
    expect(normalizeArgs(program, ['ads', 'campaigns', 'list', '--', '--header'])).toEqual([
      'ads',
      'campaigns',
      'list',
      '--',
      '--header',
    ]);
  });

  it('--raw with -o, --fields or --jq is refused before sending (exit 2)', async () => {
    for (const extra of [
      ['--jq', '.'],
      ['-o', 'tsv'],
      ['--fields', 'id'],
    ]) {
      const reg = new HttpRegistry();
      const t = tc({ transport: reg });
      await expect(t.run(['request', '/2/webhooks', '--raw', ...extra])).rejects.toMatchObject({
        exitCode: 2,
        message: '--raw prints the body exactly as received: it cannot be combined with -o, --json, --fields or --jq',
      });
      expect(reg.requests).toEqual([]);
    }
  });

  it('a text answer with -o tsv is printed as received, with a warning', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/plain'), text('just text'));
    const t = tc({ transport: reg });
    await t.run(['request', '/plain', '-o', 'tsv']);
    expect(t.stdout()).toBe('just text\n');
    expect(t.stderr()).toBe('warning: the response is not JSON: printed as received\n');
  });
});
