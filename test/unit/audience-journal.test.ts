// The upload journal: acknowledged batches survive a reopen (and a torn last line), and a
// journal for other options or other input is refused instead of misapplied.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, fileFingerprint } from '../../src/audiences/journal.js';
import { UsageError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function setup() {
  const d = tempDir('xctl-journal-');
  dirs.push(d);
  const input = path.join(d, 'in.txt');
  fs.writeFileSync(input, 'a@example.com\nb@example.com\n');
  return { file: path.join(d, 'j', 'upload.jsonl'), input };
}

describe('Journal', () => {
  it('records acknowledged batches durably and resumes them', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: { batch_size: 2500, list: 'abc' } };
    const j = Journal.open(file, header);
    expect(j.resumed).toBe(false);
    j.ack(0, 2500, 'aaaaaaaaaaaa');
    j.ack(2, 10, 'cccccccccccc');
    j.close();
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const r = Journal.open(file, header);
    expect(r.resumed).toBe(true);
    expect([...r.acked.entries()]).toEqual([
      [0, { users: 2500, head: 'aaaaaaaaaaaa' }],
      [2, { users: 10, head: 'cccccccccccc' }],
    ]);
    r.close();
  });

  it('ignores a torn last line (killed mid-write)', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    const j = Journal.open(file, header);
    j.ack(0, 5, 'h');
    j.close();
    fs.appendFileSync(file, '{"b":1,"n":5,"h"');
    const r = Journal.open(file, header);
    expect([...r.acked.keys()]).toEqual([0]);
    r.close();
  });

  it('refuses a journal written with other options or for other input; --restart discards it', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: { batch_size: 2500 } };
    Journal.open(file, header).close();
    expect(() => Journal.open(file, { ...header, options: { batch_size: 100 } })).toThrow(
      /other options \(batch_size\)/,
    );
    fs.appendFileSync(input, 'c@example.com\n');
    let err: unknown;
    try {
      Journal.open(file, { ...header, fingerprint: fileFingerprint(input) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/input changed/);
    const r = Journal.open(file, { ...header, fingerprint: fileFingerprint(input) }, { restart: true });
    expect(r.resumed).toBe(false);
    expect(r.acked.size).toBe(0);
    r.close();
  });

  it('marks completion', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    const j = Journal.open(file, header);
    j.markDone();
    j.close();
    const r = Journal.open(file, header);
    expect(r.completed).toBe(true);
    r.close();
  });
});
