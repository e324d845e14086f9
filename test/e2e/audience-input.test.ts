// Nothing lost in silence (issue 24), through the real CLI against the sandbox: a CRM export as
// people have them (BOM, CRLF, a header in words, quoted notes with commas and line breaks)
// uploads every email and phone with no --column; a quote never closed fails naming its line;
// a file of 30% bad emails with --max-reject-rate 0.1 is refused with nothing sent; an
// unmapped column of emails is exit 2 naming it; `audiences inspect` names gmial.com.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/audiences/normalize.js';
import { startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';

let t: TestSandbox;
let dir: string;
let n = 0;

beforeAll(async () => {
  t = await startTestSandbox();
  dir = tempDir('xctl-input-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function audience(): string {
  const id = `ci${++n}${Date.now().toString(36)}`;
  const now = new Date().toISOString();
  t.sb.app.state.collection('custom_audiences').set(id, {
    id,
    account_id: t.sb.seed.account_id,
    name: id,
    description: '',
    audience_size: 0,
    deleted: false,
    created_at: now,
    updated_at: now,
  });
  return id;
}
interface Members {
  size: number;
  requests: number;
  members: Record<string, string[]>;
  /** Users of several identifiers, by canonical key (their digests in it). */
  other: string[];
}
const members = async (id: string) =>
  (await t.admin<{ data: Members }>('GET', `/_sandbox/audience-members/custom_audiences/${id}`)).data;
const write = (name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};

/** A CRM export: n contacts, notes quoted (commas, quotes, line breaks), BOM and CRLF. */
function crm(
  count: number,
  fault?: { row: number },
): { text: string; emails: string[]; phones: string[]; lines: number } {
  const notes = [
    '',
    'met at the fair, wants a demo',
    'said "call me"',
    'first line\r\nsecond line, with a comma',
    'plain',
  ];
  let text = '\uFEFFFirst Name,Last Name,E-mail Address,Mobile Phone,Company,Notes\r\n';
  const emails: string[] = [];
  const phones: string[] = [];
  let lines = 1;
  for (let i = 0; i < count; i++) {
    const note = notes[i % notes.length]!;
    const quoted = /[",\r\n]/.test(note) ? `"${note.replace(/"/g, '""')}"` : note;
    const email = `Contact.${i}@Example.com`;
    const phone = `(415) 555-${String(1000 + (i % 9000)).padStart(4, '0')}`;
    emails.push(email.toLowerCase());
    if (i < 9000) phones.push(`1415555${String(1000 + i).padStart(4, '0')}`);
    const company = fault?.row === i ? '"Acme, Inc' : i % 3 === 0 ? '"Acme, Inc."' : 'Initech';
    text += `Pat,Doe ${i},${email},${phone},${company},${quoted}\r\n`;
    lines += 1 + (note.includes('\n') ? 1 : 0);
  }
  return { text, emails, phones, lines };
}

describe('the files people really have', () => {
  it('a CRM export uploads every email and phone with no --column; members checked in the sandbox', async () => {
    const id = audience();
    const c = crm(3000);
    const r = await t.run([
      'audiences',
      'upload',
      id,
      write('crm.csv', c.text),
      '--default-country',
      'US',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'header: E-mail Address -> email, Mobile Phone -> phone_number; ignored: First Name, Last Name, Company, Notes',
    );
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({
      lines: c.lines - 1,
      read: 3000,
      blank: 0,
      joined_lines: 600,
      valid: 3000,
      rejected: 0,
      reject_rate: 0,
      acknowledged: 3000,
    });
    expect(s.lines).toBe(s.read + s.blank + s.joined_lines);
    const m = await members(id);
    expect(m.size).toBe(3000);
    const held = new Set([
      ...Object.values(m.members).flat(),
      ...m.other.flatMap((k) => k.match(/[0-9a-f]{64}/g) ?? []),
    ]);
    expect(c.emails.filter((e) => !held.has(sha256Hex(e)))).toEqual([]);
    expect(c.phones.filter((p) => !held.has(sha256Hex(p)))).toEqual([]);
  });

  it('the same file with a quote never closed fails naming the line, nothing sent', async () => {
    const id = audience();
    const c = crm(3000, { row: 1200 });
    // row 1200 starts on line 2 + 1200 + the 240 notes with a line break before it
    const line = 2 + 1200 + 240;
    const r = await t.run([
      'audiences',
      'upload',
      id,
      write('crm-bad.csv', c.text),
      '--default-country',
      'US',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`line ${line}: a quoted field starts here`);
    expect(r.stderr).toContain('--lenient-quotes');
    expect((await members(id)).requests).toBe(0);
    // --lenient-quotes reads it the old way and says how many lines were joined
    const lenient = await t.run([
      'audiences',
      'upload',
      audience(),
      path.join(dir, 'crm-bad.csv'),
      '--default-country',
      'US',
      '--lenient-quotes',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(lenient.code, lenient.stderr).toBe(0);
    const s = JSON.parse(lenient.stdout);
    expect(s.lines).toBe(s.read + s.blank + s.joined_lines);
    expect(lenient.stderr).toMatch(/\d+ lines joined into quoted fields/);
  });

  it('a quote never closed far into a file: found before sending (exit 2); from stdin: exit 4, resumable', async () => {
    const id = audience();
    const c = crm(30_000, { row: 24_000 });
    const f = write('crm-late.csv', c.text);
    const line = 2 + 24_000 + 4800;
    // a file is read through for quote faults before anything is sent
    const file = await t.run(['audiences', 'upload', id, f, '--default-country', 'US', '-o', 'json']);
    expect(file.code, file.stderr).toBe(2);
    expect(file.stderr).toContain(`line ${line}: a quoted field starts here`);
    expect((await members(id)).requests).toBe(0);
    // stdin cannot be read twice: the run stops where the fault is, with its journal
    const journal = path.join(dir, 'late.journal');
    const args = [
      'audiences',
      'upload',
      id,
      '-',
      '--default-country',
      'US',
      '--journal',
      journal,
      '--batch-size',
      '1000',
      '-o',
      'json',
    ];
    const r = await t.run(args, { input: c.text });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`line ${line}: a quoted field starts here`);
    expect(r.stderr).toContain('--lenient-quotes to resume');
    const sent = (await members(id)).size;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(24_000);
    const again = await t.run([...args, '--lenient-quotes'], { input: c.text });
    expect(again.code, again.stderr).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.resumed_batches).toBeGreaterThan(0);
    expect(s.lines).toBe(s.read + s.blank + s.joined_lines);
    expect((await members(id)).size).toBeGreaterThan(24_000);
  });

  it('30% bad emails with --max-reject-rate 0.1: refused, nothing sent; the default gate too', async () => {
    const id = audience();
    const rows = Array.from({ length: 2000 }, (_, i) => (i % 10 < 3 ? `bad-${i}` : `u${i}@example.com`));
    const f = write('bad.csv', 'email\n' + rows.join('\n') + '\n');
    const r = await t.run(['audiences', 'upload', id, f, '--max-reject-rate', '0.1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      '600 of the first 2000 values were rejected (30%), more than --max-reject-rate 0.1: nothing was sent',
    );
    expect((await members(id)).requests).toBe(0);
    const d = await t.run(['audiences', 'upload', id, f, '-o', 'json']);
    expect(d.code, d.stderr).toBe(2);
    expect(d.stderr).toContain('more than the 20% allowed by default');
    const off = await t.run(['audiences', 'upload', id, f, '--max-reject-rate', '1', '-o', 'json']);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ read: 2000, valid: 1400, rejected: 600, reject_rate: 0.3 });
    // sync takes the same gate
    const sync = await t.run(['audiences', 'sync', audience(), f, '--max-reject-rate', '0.1', '-o', 'json']);
    expect(sync.code, sync.stderr).toBe(2);
  });

  it('an unmapped column of emails is exit 2 naming it; --ignore-column or --column settles it', async () => {
    const id = audience();
    const f = write(
      'two.csv',
      'Phone,Work Contact\n+1 415 555 0100,ann@example.com\n+1 415 555 0101,bob@example.com\n',
    );
    const r = await t.run(['audiences', 'upload', id, f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'column "Work Contact" is not mapped to any type, but 2 of its 2 sampled values look like email addresses: nothing was sent',
    );
    expect(r.stderr).toContain('--column email="Work Contact"');
    expect(r.stderr).toContain('--ignore-column "Work Contact"');
    const ok = await t.run([
      'audiences',
      'upload',
      id,
      f,
      '--column',
      'phone_number=Phone',
      '--column',
      'email=Work Contact',
      '-o',
      'json',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await members(id)).size).toBe(2);
  });

  it('audiences inspect names gmial.com (no credentials, no network)', async () => {
    const f = write(
      'typos.csv',
      'Email\n' + ['ann@gmial.com', 'bob@gmail.com', 'cy@gmial.com', 'di@hotmial.com'].join('\n') + '\n',
    );
    const r = await t.run(['audiences', 'inspect', f, '-o', 'json'], {
      env: { XCTL_API_KEY: '', XCTL_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).typo_domains).toEqual([
      { domain: 'gmial.com', count: 2, likely: 'gmail.com' },
      { domain: 'hotmial.com', count: 1, likely: 'hotmail.com' },
    ]);
  });
});
