// core/output.ts: the exact text of every format (table on a terminal, tsv when piped, json,
// jsonl), --fields checks, and single entities.
import { describe, expect, it } from 'vitest';
import { RecordWriter, effectiveFormat, parseFields, parseFormat, printList, printOne } from '../../src/core/output.js';
import { testContext } from '../helpers/test-context.js';

const rows = [
  { id: '1', name: 'Alpha', tags: ['a', 'b'], nested: { x: 1 }, empty: null },
  { id: '22', name: 'Tab\there\nnewline\\slash', tags: [], nested: { x: 2 }, empty: null },
];

describe('formats', () => {
  it('picks table on a terminal and tsv when piped; -o and --json win', () => {
    expect(effectiveFormat(testContext({ tty: true }).ctx.io, {})).toBe('table');
    expect(effectiveFormat(testContext({ tty: false }).ctx.io, {})).toBe('tsv');
    expect(effectiveFormat(testContext({ tty: true }).ctx.io, { format: 'jsonl' })).toBe('jsonl');
    expect(parseFormat(undefined, true)).toBe('json');
    expect(() => parseFormat('yaml')).toThrow(/--output must be one of table, json, jsonl, tsv, csv \(got "yaml"\)/);
    expect(effectiveFormat(testContext({ tty: true }).ctx.io, { format: 'tsv', jq: '.' })).toBe('json');
    expect(() => parseFields(' , ')).toThrow(/--fields needs at least one field name/);
    expect(parseFields('a, b.c')).toEqual(['a', 'b.c']);
  });

  it('tsv: no header, the given columns, escapes tab, newline, CR and backslash; objects as JSON', async () => {
    const t = testContext({ tty: false });
    expect(await printList(t.ctx.io, {}, rows, { columns: ['id', 'name', 'tags', 'nested.x', 'empty'] })).toBe(2);
    expect(t.stdout()).toBe('1\tAlpha\t["a","b"]\t1\t\n22\tTab\\there\\nnewline\\\\slash\t[]\t2\t\n');
    expect(t.stderr()).toBe('');
  });

  it('table: bold-free header (NO_COLOR), sized to the content, no rule between rows', async () => {
    const t = testContext({ tty: true, columns: 80 });
    await printList(
      t.ctx.io,
      {},
      [
        { id: '1', name: 'Alpha' },
        { id: '22', name: 'Beta' },
      ],
      { columns: ['id', 'name'] },
    );
    expect(t.stdout()).toBe(
      [
        '┌────┬───────┐',
        '│ id │ name  │',
        '├────┼───────┤',
        '│ 1  │ Alpha │',
        '│ 22 │ Beta  │',
        '└────┴───────┘',
        '',
      ].join('\n'),
    );
  });

  it('table: an empty list prints nothing on stdout and says so on stderr', async () => {
    const t = testContext({ tty: true });
    expect(await printList(t.ctx.io, {}, [], { columns: ['id'] })).toBe(0);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toBe('(no records)\n');
  });

  it('json: one array, written as records arrive; [] when empty', async () => {
    const t = testContext();
    async function* gen() {
      yield { id: '1' };
      yield { id: '2', n: 3 };
    }
    await printList(t.ctx.io, { format: 'json' }, gen());
    expect(t.stdout()).toBe('[\n  {\n    "id": "1"\n  },\n  {\n    "id": "2",\n    "n": 3\n  }\n]\n');
    expect(JSON.parse(t.stdout())).toEqual([{ id: '1' }, { id: '2', n: 3 }]);
    const e = testContext();
    await printList(e.ctx.io, { format: 'json' }, []);
    expect(e.stdout()).toBe('[]\n');
  });

  it('jsonl: one compact record per line; --fields picks (null for missing) in order', async () => {
    const t = testContext();
    await printList(t.ctx.io, { format: 'jsonl', fields: ['name', 'id', 'nested.x'] }, rows, {
      knownFields: ['id', 'name', 'nested', 'tags', 'empty'],
    });
    expect(t.stdout()).toBe(
      '{"name":"Alpha","id":"1","nested.x":1}\n{"name":"Tab\\there\\nnewline\\\\slash","id":"22","nested.x":2}\n',
    );
  });

  it('--fields: an unknown field is a usage error listing the valid ones, before anything is printed', async () => {
    const t = testContext();
    expect(() => new RecordWriter(t.ctx.io, { fields: ['id', 'nope'] }, { knownFields: ['id', 'name'] })).toThrow(
      'unknown field nope for --fields; valid fields: id, name',
    );
    // without known fields, the first record's keys are the judge
    await expect(printList(t.ctx.io, { fields: ['nope', 'zip'] }, [{ id: '1' }])).rejects.toThrow(
      'unknown fields nope, zip for --fields; valid fields: id',
    );
    expect(t.stdout()).toBe('');
  });
});

describe('printOne', () => {
  const rec = { id: '7', name: 'Seven', valid: true };
  it('json prints the object, jsonl one line, tsv one row of the columns', async () => {
    const j = testContext();
    await printOne(j.ctx.io, { format: 'json' }, rec);
    expect(j.stdout()).toBe('{\n  "id": "7",\n  "name": "Seven",\n  "valid": true\n}\n');
    const l = testContext();
    await printOne(l.ctx.io, { format: 'jsonl' }, rec);
    expect(l.stdout()).toBe('{"id":"7","name":"Seven","valid":true}\n');
    const s = testContext();
    await printOne(s.ctx.io, {}, rec, { columns: ['name', 'valid'] });
    expect(s.stdout()).toBe('Seven\ttrue\n');
  });
  it('table is key/value rows', async () => {
    const t = testContext({ tty: true });
    await printOne(t.ctx.io, {}, rec);
    expect(t.stdout()).toBe(
      [
        '┌───────┬───────┐',
        '│ id    │ 7     │',
        '│ name  │ Seven │',
        '│ valid │ true  │',
        '└───────┴───────┘',
        '',
      ].join('\n'),
    );
  });
});
