// `audiences inspect` in-process: the report on a terminal and as JSON, exit 2 (after the
// report) for a file an upload would refuse, typo domains, and no network.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editDistance, likelyDomain } from '../../src/audiences/inspect.js';
import { UsageError } from '../../src/core/errors.js';
import { testContext } from '../helpers/test-context.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-inspect-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

const CRM =
  '\uFEFFEmail Address,Phone Number,Name,Notes\r\n' +
  'Ann@Example.com,+1 415 555 0100,Ann,"met at the fair, wants a call\r\nback on Monday"\r\n' +
  'bob@gmial.com,(415) 555-0101,Bob,\r\n' +
  '\r\n' +
  'ann@example.com,,Ann again,\r\n' +
  'not-an-email,+44 20 7946 0958,Cy,\r\n';

describe('typo domains', () => {
  it('finds near misses of common mail domains, not the domains themselves', () => {
    expect(editDistance('gmial.com', 'gmail.com')).toBe(1);
    expect(likelyDomain('gmial.com')).toBe('gmail.com');
    expect(likelyDomain('hotmial.com')).toBe('hotmail.com');
    expect(likelyDomain('yaho.com')).toBe('yahoo.com');
    expect(likelyDomain('gmail.con')).toBe('gmail.com');
    expect(likelyDomain('gmail.com')).toBeUndefined();
    expect(likelyDomain('example.com')).toBeUndefined();
  });
});

describe('audiences inspect', () => {
  it('JSON: rows, blank, columns, values, duplicates, rejects with lines, typos, countries, requests', async () => {
    const t = testContext({ env: { XCTL_API_KEY: undefined, XCTL_ACCOUNT_ID: undefined } });
    await t.run([
      'audiences',
      'inspect',
      file('crm.csv', CRM),
      '--default-country',
      'US',
      '--max-reject-rate',
      '1',
      '-o',
      'json',
    ]);
    const r = JSON.parse(t.stdout());
    expect(r).toMatchObject({ format: 'csv', lines: 6, rows: 4, blank: 1, joined_lines: 1, users: 4, requests: 1 });
    expect(r.columns).toEqual([
      { name: 'Email Address', type: 'email', filled: 4, coverage: 1 },
      { name: 'Phone Number', type: 'phone_number', filled: 3, coverage: 0.75 },
      { name: 'Name', type: null, filled: 4, coverage: 1 },
      { name: 'Notes', type: null, filled: 1, coverage: 0.25 },
    ]);
    expect(r.values).toEqual({
      email: { values: 4, valid: 3, rejected: 1 },
      phone_number: { values: 3, valid: 3, rejected: 0 },
    });
    expect(r.duplicates).toEqual({ exact: 0, after_normalization: 1 });
    expect(r.normalization_changed.examples[0]).toEqual({
      line: 2,
      type: 'email',
      input: 'Ann@Example.com',
      normalized: 'ann@example.com',
    });
    expect(r.rejects).toEqual([{ reason: 'not an email address', column: 'Email Address', count: 1, lines: [7] }]);
    expect(r.typo_domains).toEqual([{ domain: 'gmial.com', count: 1, likely: 'gmail.com' }]);
    expect(r.phone_countries).toEqual([
      { country: 'US', count: 2 },
      { country: 'GB', count: 1 },
    ]);
    expect(r.reject_rate).toBe(0.1429);
    t.cleanup();
  });

  it('a terminal gets the report as text', async () => {
    const t = testContext({ tty: true });
    await t.run(['audiences', 'inspect', file('crm2.csv', CRM), '--default-country', 'US']);
    const out = t.stdout();
    expect(out).toContain('lines                 6 (4 rows, 1 blank, 1 joined into quoted fields)');
    expect(out).toMatch(/Phone Number\s+phone_number\s+75.0%/);
    expect(out).toContain('  gmial.com (1) -> gmail.com?');
    expect(out).toContain('  1 x not an email address (Email Address), e.g. line 7');
    t.cleanup();
  });

  it('exit 2 after the report when an upload would refuse the file', async () => {
    const t = testContext();
    const f = file('hidden.csv', 'Phone,Contact\n+1 415 555 0100,ann@example.com\n');
    await expect(t.run(['audiences', 'inspect', f, '-o', 'json'])).rejects.toThrow(UsageError);
    expect(JSON.parse(t.stdout()).columns[1]).toMatchObject({
      name: 'Contact',
      type: null,
      looks_like: 'email (1 of 1 sampled)',
    });
    const q = testContext();
    await expect(
      q.run(['audiences', 'inspect', file('quote.csv', 'email,name\na@x.com,"Ann\nb@x.com,Bob\n'), '-o', 'json']),
    ).rejects.toThrow(/a quoted field starts here/);
    expect(JSON.parse(q.stdout()).quote_fault).toMatch(/^line 2: /);
    t.cleanup();
    q.cleanup();
  });

  // Issue 40: inspect agrees with upload on the same files.
  it('jsonl: each column counts its own values (coverage and type per key)', async () => {
    const t = testContext();
    const f = file(
      'people.jsonl',
      '{"email":"a@b.co","phone":"+14155550100"}\n{"email":"c@d.co"}\n{"phone":"+14155550101"}\n',
    );
    await t.run(['audiences', 'inspect', f, '--column', 'email=email', '--column', 'phone_number=phone', '-o', 'json']);
    const r = JSON.parse(t.stdout());
    expect(r.columns).toEqual([
      { name: 'email', type: 'email', filled: 2, coverage: 0.667 },
      { name: 'phone', type: 'phone_number', filled: 2, coverage: 0.667 },
    ]);
    expect(r.values).toEqual({
      email: { values: 2, valid: 2, rejected: 0 },
      phone_number: { values: 2, valid: 2, rejected: 0 },
    });
    t.cleanup();
  });

  it('bytes that are not UTF-8 are rejected as upload rejects them; a last line without newline is reported', async () => {
    const t = testContext();
    const f = path.join(dir, 'bad-utf8.txt');
    fs.writeFileSync(
      f,
      Buffer.concat([Buffer.from('email\nok@x.co\nmal'), Buffer.from([0xff]), Buffer.from('@x.co\nuser@exam')]),
    );
    await t.run(['audiences', 'inspect', f, '--max-reject-rate', '1', '-o', 'json']);
    const r = JSON.parse(t.stdout());
    expect(r.rejects).toEqual([
      { reason: 'not valid UTF-8', column: 'email', count: 1, lines: [3] },
      { reason: 'not an email address', column: 'email', count: 1, lines: [4] },
    ]);
    expect(r.unterminated_last_line).toBe(4);
    t.cleanup();
  });

  it('a 0-byte file is exit 2 saying so', async () => {
    const t = testContext();
    await expect(t.run(['audiences', 'inspect', file('zero.csv', ''), '--type', 'email'])).rejects.toThrow(
      /zero\.csv is empty \(0 bytes\)/,
    );
    t.cleanup();
  });
});
