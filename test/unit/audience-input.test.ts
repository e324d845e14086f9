// Input handling in the hash workers' processor: formats, header detection, quoting, rejects
// with line numbers, multi-column users and digest detection.
import { describe, expect, it } from 'vitest';
import { processChunk, type ProcessorConfig } from '../../src/audiences/chunk-processor.js';
import { lastRecordEnd, planColumns, sniffFormat } from '../../src/audiences/input.js';
import { sha256Hex } from '../../src/audiences/normalize.js';

const enc = (s: string) => new TextEncoder().encode(s);
function users(cfg: ProcessorConfig, text: string) {
  const r = processChunk(0, enc(text), cfg);
  const s = Buffer.from(r.frags).toString('latin1');
  expect(s.endsWith(',') || s === '').toBe(true);
  return { r, users: JSON.parse('[' + s.slice(0, -1) + ']') as Array<Record<string, string[]>> };
}

describe('format sniffing and header detection', () => {
  it('sniffs the format from the first line', () => {
    expect(sniffFormat('{"email":"a@b.c"}')).toBe('jsonl');
    expect(sniffFormat('email\tphone')).toBe('tsv');
    expect(sniffFormat('email,phone')).toBe('csv');
    expect(sniffFormat('a@example.com')).toBe('lines');
  });
  it('finds typed columns in a header', () => {
    expect(planColumns('csv', 'id,Email,Phone', { columns: [] })).toMatchObject({
      header: true,
      columns: [
        { type: 'email', name: 'Email', index: 1 },
        { type: 'phone_number', name: 'Phone', index: 2 },
      ],
    });
    expect(
      planColumns('csv', 'name,Mobile', { columns: [{ type: 'phone_number', header: 'mobile' }] }).columns,
    ).toEqual([{ type: 'phone_number', name: 'mobile', index: 1 }]);
    expect(() => planColumns('csv', 'name,Mobile', { columns: [{ type: 'email', header: 'mail' }] })).toThrow(
      /no column "mail"/,
    );
    // a one-column file: a first row that is not an email is a header
    expect(planColumns('csv', 'Email Address', { type: 'email', columns: [] }).header).toBe(true);
    expect(planColumns('csv', 'a@example.com', { type: 'email', columns: [] }).header).toBe(false);
  });
  it('never splits a quoted field across chunks', () => {
    const b = Buffer.from('a,"x\ny"\nb,c\nd,"e\n');
    expect(lastRecordEnd(b, true)).toBe(b.indexOf('b,c') + 3);
    expect(lastRecordEnd(b, false)).toBe(b.length - 1);
  });
});

describe('processChunk', () => {
  const email: ProcessorConfig = {
    format: 'lines',
    columns: [{ type: 'email', name: 'email', index: 0 }],
    hashed: false,
  };

  it('hashes one value per line, skips blank lines, rejects with line numbers', () => {
    const { r, users: u } = users(email, ' A@Example.com\r\n\nnot-an-email\nb@example.com');
    expect(u).toEqual([{ email: [sha256Hex('a@example.com')] }, { email: [sha256Hex('b@example.com')] }]);
    expect(r.read).toBe(3);
    expect(r.valid).toBe(2);
    expect(r.lines).toBe(4);
    expect(r.rejects).toEqual([[3, 'email', 'not an email address']]);
  });

  it('handles other single-column types the same way (handles, --hashed digests)', () => {
    const handle: ProcessorConfig = {
      format: 'lines',
      columns: [{ type: 'handle', name: 'handle', index: 0 }],
      hashed: false,
    };
    const { r, users: u } = users(handle, '@Jack\r\n  \nnot a handle\n');
    expect(u).toEqual([{ handle: [sha256Hex('jack')] }]);
    expect(r.rejects).toEqual([[3, 'handle', 'not a handle (1-15 letters, digits or _)']]);
    const hashed: ProcessorConfig = { ...email, hashed: true };
    const d = sha256Hex('a@example.com');
    const h = users(hashed, `${d.toUpperCase()}\nnot-a-digest\n`);
    expect(h.users).toEqual([{ email: [d] }]);
    expect(h.r.rejects[0]![0]).toBe(2);
  });

  it('reports the first digest-looking line without --hashed', () => {
    const { r } = users(email, `a@example.com\n${sha256Hex('x')}\n`);
    expect(r.digestLine).toBe(2);
  });

  it('builds one user from several csv columns, with quotes and empty cells', () => {
    const cfg: ProcessorConfig = {
      format: 'csv',
      columns: [
        { type: 'email', name: 'Email', index: 0 },
        { type: 'phone_number', name: 'Phone', index: 1 },
        { type: 'partner_user_id', name: 'Id', index: 2 },
      ],
      hashed: false,
      defaultCountry: 'US',
    };
    const { r, users: u } = users(
      cfg,
      'a@example.com,"(415) 555-2671","C-1"\n,"+44 20 7946 0958","line\nbreak"\nbad,,\n',
    );
    expect(u).toEqual([
      { email: [sha256Hex('a@example.com')], phone_number: [sha256Hex('14155552671')], partner_user_id: ['C-1'] },
      { phone_number: [sha256Hex('442079460958')], partner_user_id: ['line\nbreak'] },
    ]);
    expect(r.rejects).toEqual([[4, 'Email', 'not an email address']]);
  });

  it('reads jsonl by type keys, ids as strings', () => {
    const cfg: ProcessorConfig = {
      format: 'jsonl',
      columns: [{ type: 'twitter_id', name: 'twitter_id', keys: ['twitter_id', 'service_id'] }],
      hashed: false,
    };
    const { r, users: u } = users(
      cfg,
      '{"service_id":"00783214"}\n{"twitter_id":"1234567890123456789012"}\nnot json\n{}\n',
    );
    expect(u).toEqual([{ twitter_id: [sha256Hex('783214')] }, { twitter_id: [sha256Hex('1234567890123456789012')] }]);
    expect(r.rejects.map((x) => x[0])).toEqual([3, 4]);
  });
});
