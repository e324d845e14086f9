// The upload journal: acknowledged batches survive a reopen (and a torn last line), and a
// journal for other options or other input is refused instead of misapplied.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { batchDigest, fileFingerprint, Journal, JournalWriteError } from '../../src/audiences/journal.js';
import { RetryLaterError, UsageError, XctlError } from '../../src/core/errors.js';
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

// Mutation testing (TESTING.md): the lock, every refusal word for word, the exact lines written,
// group commit, failed writes, and what decides that a journal matches.
const lineOf = (file: string, n: number) => fs.readFileSync(file, 'utf8').split('\n')[n];
const thrown = (f: () => unknown): XctlError => {
  try {
    f();
  } catch (e) {
    return e as XctlError;
  }
  throw new Error('did not throw');
};
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('Journal: lock', () => {
  it('open in a live process: refused, naming its pid and the lock; closing frees it', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    const j = Journal.open(file, header);
    expect(JSON.parse(fs.readFileSync(file + '.lock', 'utf8'))).toMatchObject({ pid: process.pid });
    const err = thrown(() => Journal.open(file, header));
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err.message).toBe(`another upload (pid ${process.pid}) is using the journal ${file}`);
    expect(err.hint).toBe(`wait for it to finish; if no upload is running, remove ${file}.lock`);
    j.close();
    expect(fs.existsSync(file + '.lock')).toBe(false);
    j.close(); // twice: nothing more to do
    Journal.open(file, header).close();
  });

  it('a lock whose process is gone, or that held no pid for 30 s, is stale and taken over', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const old = new Date(Date.now() - 31_000);
    const dead = deadPid();
    // a bare pid (what earlier versions wrote), a record, and what is no record at all
    for (const stale of [String(dead), JSON.stringify({ pid: dead, at: 0 }), 'garbage', '0', '-1', '']) {
      fs.writeFileSync(file + '.lock', stale);
      fs.utimesSync(file + '.lock', old, old);
      const j = Journal.open(file, header);
      expect(JSON.parse(fs.readFileSync(file + '.lock', 'utf8'))).toMatchObject({ pid: process.pid });
      j.close();
    }
  });

  it('a live pid whose process started after the lock was written (pid reused) is not the holder', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file + '.lock', JSON.stringify({ pid: process.pid, start: '1', at: 0, nonce: 'x' }));
    Journal.open(file, header).close();
    expect(fs.existsSync(file + '.lock')).toBe(false);
  });

  it('a bare pid of a live process (an earlier version running) is held', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file + '.lock', String(process.pid));
    const err = thrown(() => Journal.open(file, header));
    expect(err.message).toBe(`another upload (pid ${process.pid}) is using the journal ${file}`);
  });
});

describe('Journal: a lock being made, a lock that is not a file', () => {
  it('an empty lock just made (its maker writes its pid next) is held: retry later, not taken', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file + '.lock', '');
    const err = thrown(() => Journal.open(file, header));
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err.message).toBe(`another upload is taking the journal ${file}`);
    expect(fs.readFileSync(file + '.lock', 'utf8')).toBe('');
  });

  it('a directory where the lock goes: a usage error naming it, left in place', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    fs.mkdirSync(file + '.lock', { recursive: true });
    const err = thrown(() => Journal.open(file, header));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(new RegExp(`^cannot lock the journal ${file}: ${file}.lock is not a lock file`));
    expect(fs.statSync(file + '.lock').isDirectory()).toBe(true);
  });
});

describe('Journal: the lock that cannot be made, late acks, a second remove', () => {
  it('a lock file that cannot be created is a usage error naming --journal and the reason', () => {
    const { input } = setup();
    const d = tempDir('xctl-journal-');
    dirs.push(d);
    const file = path.join(d, 'j'.repeat(251)); // fits NAME_MAX; its ".lock" does not
    const err = thrown(() => Journal.open(file, { fingerprint: fileFingerprint(input), options: {} }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(new RegExp(`^cannot lock the journal ${file}: ENAMETOOLONG`));
    expect((err as UsageError).flag).toBe('--journal');
    expect(err.hint).toBe(`remove ${file}.lock if no upload is running, or choose another --journal`);
    const err2 = thrown(() => Journal.open(file, { fingerprint: {}, options: {} }, { flag: '--state-dir' }));
    expect((err2 as UsageError).flag).toBe('--state-dir');
  });

  it('an ack after close is dropped, no write error (it is sent again on resume)', async () => {
    const { file, input } = setup();
    const j = Journal.open(file, { fingerprint: fileFingerprint(input), options: {} });
    j.close();
    j.ack(0, 1, 'h');
    j.flush();
    await new Promise((r) => setImmediate(r));
    expect(j.failed).toBeUndefined();
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
  });

  it('remove() when the file is already gone does not throw', () => {
    const { file, input } = setup();
    const j = Journal.open(file, { fingerprint: fileFingerprint(input), options: {} });
    fs.rmSync(file);
    j.remove();
    expect(fs.existsSync(file + '.lock')).toBe(false);
  });

  it('options in lists are compared element by element ([1, 23] is not [12, 3])', () => {
    const { file, input } = setup();
    const fingerprint = fileFingerprint(input);
    Journal.open(file, { fingerprint, options: { ids: [1, 23] } }).close();
    expect(() => Journal.open(file, { fingerprint, options: { ids: [12, 3] } })).toThrow(/other options \(ids\)/);
  });

  it.skipIf(!fs.existsSync('/proc/self/fd'))('fileFingerprint closes the file it reads', () => {
    const { input } = setup();
    const open = () => fs.readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 20; i++) fileFingerprint(input);
    expect(open()).toBe(before);
  });
});

describe('Journal: refusals, word for word', () => {
  it('a folder that cannot be made: nothing was sent, --journal named', () => {
    const { file, input } = setup();
    fs.writeFileSync(path.dirname(file), 'a file, not a folder');
    const err = thrown(() => Journal.open(file, { fingerprint: fileFingerprint(input), options: {} }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(`cannot create the folder of the journal ${file} (EEXIST): nothing was sent`);
    expect((err as UsageError).flag).toBe('--journal');
    expect(err.hint).toBe('pass --journal FILE in a folder this user can write to');
    const sub = path.join(path.dirname(file), 'deeper', 'j.jsonl');
    const err2 = thrown(() => Journal.open(sub, { fingerprint: {}, options: {} }, { flag: '--from-upload' }));
    expect(err2.message).toBe(`cannot create the folder of the journal ${sub} (ENOTDIR): nothing was sent`);
    expect((err2 as UsageError).flag).toBe('--from-upload');
  });

  it('not a journal (not JSON, another version, empty): refused, the lock released', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    for (const text of ['a@example.com\n', '{"xctl_upload_journal":2}\n', '', '[1]\n']) {
      fs.writeFileSync(file, text);
      const err = thrown(() => Journal.open(file, header, { flag: '--journal' }));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toBe(`${file} is not an upload journal`);
      expect((err as UsageError).flag).toBe('--journal');
      expect(err.hint).toBe('pass --restart to overwrite it, or another --journal');
      expect(fs.existsSync(file + '.lock')).toBe(false);
    }
    const err = thrown(() => Journal.open(file, header));
    expect((err as UsageError).flag).toBe('--journal');
  });

  it('other options: every key that differs, in any key order; undefined keys do not count', () => {
    const { file, input } = setup();
    const fp = fileFingerprint(input);
    const options = { list: 'abc', batch_size: 2500, effective_at: undefined, ops: [1, { a: 2 }] };
    Journal.open(file, { fingerprint: fp, options }).close();
    Journal.open(file, {
      fingerprint: fp,
      options: { ops: [1, { a: 2 }], batch_size: 2500, list: 'abc' },
    }).close();
    const err = thrown(() =>
      Journal.open(file, {
        fingerprint: fp,
        options: { list: 'abd', batch_size: 2500, ops: [1, { a: 3 }], x: 1 },
      }),
    );
    expect(err.message).toBe(`the journal ${file} was written with other options (list, ops, x)`);
    expect((err as UsageError).flag).toBe('--restart');
    expect(err.hint).toBe('run the original command to resume, or pass --restart to start this upload from the top');
    const err2 = thrown(() => Journal.open(file, { fingerprint: { ...fp, size: 1 }, options }));
    expect(err2.message).toBe(`the input changed since the journal ${file} was written`);
    expect((err2 as UsageError).flag).toBe('--restart');
    expect(err2.hint).toBe('pass --restart to upload the new input from the top');
    expect(() => Journal.open(file, { fingerprint: fp, options: { ...options, ops: [1, { a: 2 }, null] } })).toThrow(
      /other options \(ops\)/,
    );
  });

  it('a journal that cannot be written (a full disk) is a usage error, and leaves no lock', () => {
    const { file } = setup();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync('/dev/full', file);
    const err = thrown(() => Journal.open(file, { fingerprint: {}, options: {} }, { restart: true }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(`cannot write the journal ${file}: ENOSPC`);
    expect((err as UsageError).flag).toBe('--journal');
    expect(err.hint).toBe('free some space or pass --journal elsewhere');
    expect(fs.existsSync(file + '.lock')).toBe(false);
  });
});

describe('Journal: what is written', () => {
  it('the header, a line per ack (with its digest), written together after the turn', async () => {
    const { file, input } = setup();
    const fingerprint = fileFingerprint(input);
    const j = Journal.open(file, { fingerprint, options: { b: 1 }, input });
    const head = JSON.parse(lineOf(file, 0)!);
    expect(Object.keys(head)).toEqual(['xctl_upload_journal', 'fingerprint', 'options', 'input', 'created_at']);
    expect(head).toMatchObject({ xctl_upload_journal: 1, fingerprint, options: { b: 1 }, input });
    expect(head.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const written = [j.ack(3, 7, 'abcdef012345', 'D'.repeat(22)), j.ack(4, 1, 'bbbbbbbbbbbb')];
    expect(j.acked.get(3)).toEqual({ users: 7, head: 'abcdef012345', digest: 'D'.repeat(22) });
    expect(j.acked.get(4)).toEqual({ users: 1, head: 'bbbbbbbbbbbb' });
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(2); // not yet: group commit
    await Promise.all(written);
    expect(fs.readFileSync(file, 'utf8').split('\n').slice(1)).toEqual([
      `{"b":3,"n":7,"h":"abcdef012345","d":"${'D'.repeat(22)}"}`,
      '{"b":4,"n":1,"h":"bbbbbbbbbbbb"}',
      '',
    ]);
    await j.ack(5, 2, 'cccccccccccc'); // a later turn is scheduled again
    expect(lineOf(file, 3)).toBe('{"b":5,"n":2,"h":"cccccccccccc"}');
    j.markDone();
    expect(lineOf(file, 4)).toMatch(/^\{"done":true,"at":"\d{4}-\d{2}-\d{2}T[\d:.]+Z"\}$/);
    j.close();
    // the input's path is not compared
    const r = Journal.open(file, { fingerprint, options: { b: 1 }, input: '/elsewhere' });
    expect(r.completed).toBe(true);
    expect(r.acked.get(3)).toEqual({ users: 7, head: 'abcdef012345', digest: 'D'.repeat(22) });
    expect([...r.acked.keys()]).toEqual([3, 4, 5]);
    r.remove();
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(file + '.lock')).toBe(false);
  });

  it('an ack resolves once its line is on disk, off the main thread; acks during a write go in the next', async () => {
    const { file, input } = setup();
    const j = Journal.open(file, { fingerprint: fileFingerprint(input), options: {} });
    const lines = () => fs.readFileSync(file, 'utf8').split('\n').length - 2;
    const order: string[] = [];
    const a = j.ack(0, 1, 'a').then(() => {
      order.push('a');
      expect(lines()).toBeGreaterThanOrEqual(1);
    });
    await new Promise((r) => setImmediate(r));
    // The write is on the thread pool: the main thread goes on, and these wait for the next one.
    expect(Reflect.get(j, 'writing')).toBe(true);
    const later = [j.ack(1, 1, 'b'), j.ack(2, 1, 'c')].map((x, i) => x.then(() => order.push(`bc${i}`)));
    await a;
    expect(order).toEqual(['a']);
    await Promise.all(later);
    expect(order).toEqual(['a', 'bc0', 'bc1']);
    expect(lines()).toBe(3);
    // close() while a write is under way waits for it, then writes the rest and closes.
    void j.ack(3, 1, 'd');
    await new Promise((r) => setImmediate(r));
    j.markDone();
    j.close();
    expect(fs.existsSync(file + '.lock')).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(fs.existsSync(file + '.lock')).toBe(false);
    const r = Journal.open(file, { fingerprint: fileFingerprint(input), options: {} });
    expect([...r.acked.keys()]).toEqual([0, 1, 2, 3]);
    expect(r.completed).toBe(true);
    r.close();
  });

  it('on resume: blank lines and lines without a batch skipped; a torn line ends it', () => {
    const { file, input } = setup();
    const header = { fingerprint: fileFingerprint(input), options: {} };
    Journal.open(file, header).close();
    fs.appendFileSync(
      file,
      '\n{"b":0}\n{"x":1}\n{"b":"1","n":3}\n{"b":2,"n":3,"h":"h2"}\n{"b":3,\n{"b":4,"n":1,"h":"h4"}\n',
    );
    const r = Journal.open(file, header);
    expect(r.resumed).toBe(true);
    expect(r.completed).toBe(false);
    expect([...r.acked.entries()]).toEqual([
      [0, { users: 0, head: '' }],
      [2, { users: 3, head: 'h2' }],
    ]);
    r.close();
  });

  it('a failed write sets `failed` (disk full), writes nothing more, does not throw', async () => {
    const { file, input } = setup();
    const j = Journal.open(file, { fingerprint: fileFingerprint(input), options: {} });
    const before = fs.readFileSync(file, 'utf8');
    const real = Reflect.get(j, 'fd') as number;
    Reflect.set(j, 'fd', fs.openSync('/dev/full', 'w'));
    await j.ack(0, 1, 'h');
    expect(j.failed).toBeInstanceOf(JournalWriteError);
    expect(j.failed!.message).toBe(`cannot write the journal ${file} (ENOSPC: the disk is full)`);
    Reflect.set(j, 'fd', real);
    j.ack(1, 1, 'h');
    j.flush();
    expect(fs.readFileSync(file, 'utf8')).toBe(before); // once failed, nothing more is written
    j.close();
    const k = Journal.open(file, { fingerprint: fileFingerprint(input), options: {} });
    fs.closeSync(Reflect.get(k, 'fd') as number);
    k.ack(0, 1, 'h');
    k.flush();
    expect(k.failed!.message).toBe(`cannot write the journal ${file} (EBADF)`);
  });
});

describe('fileFingerprint and batchDigest', () => {
  it('size, first and last 64 KiB: a change at either end shows, in the middle not', () => {
    const { input } = setup();
    const big = Buffer.alloc(200_000, 'a');
    fs.writeFileSync(input, big);
    const fp = fileFingerprint(input);
    const h = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex').slice(0, 32);
    expect(fp).toEqual({
      size: 200_000,
      head: h(big.subarray(0, 65536)),
      tail: h(big.subarray(200_000 - 65536)),
    });
    big[100_000] = 98;
    fs.writeFileSync(input, big);
    expect(fileFingerprint(input)).toEqual(fp);
    big[200_000 - 65536] = 98;
    fs.writeFileSync(input, big);
    expect(fileFingerprint(input)).toMatchObject({ head: fp.head, size: fp.size });
    expect(fileFingerprint(input).tail).not.toBe(fp.tail);
    fs.writeFileSync(input, 'ab');
    expect(fileFingerprint(input)).toEqual({
      size: 2,
      head: h(Buffer.from('ab')),
      tail: h(Buffer.from('ab')),
    });
  });

  it('batchDigest: the first 22 base64url characters of SHA-256 (128 bits)', () => {
    const body = Buffer.from('[{"operation_type":"Update"}]');
    expect(batchDigest(body)).toBe(crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22));
    expect(batchDigest(body)).toHaveLength(22);
  });
});

// Issue 43: the survivors of the background write path (flushAsync), each a change the tests
// above did not see. Every wait is a turn of the event loop or a file-system callback, never
// a timer: an ack that should have resolved by then and has not is the failure.
describe('Journal: the background write path', () => {
  /** Resolves after the callbacks queued so far, and those they queue, have run (fs ones included). */
  const settle = async (turns = 20) => {
    for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
  };
  const tracked = (p: Promise<void>) => {
    const s = { done: false };
    void p.then(() => {
      s.done = true;
    });
    return s;
  };
  const open = () => {
    const { file, input } = setup();
    return { file, j: Journal.open(file, { fingerprint: fileFingerprint(input), options: {} }) };
  };
  const lines = (file: string) => fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(1);

  it('an ack is resolved only after its line is written and fdatasynced on the thread pool', async () => {
    const { file, j } = open();
    const order: string[] = [];
    const realSync = fs.fdatasync;
    const spy = vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (e: Error | null) => void) => {
      order.push(`sync ${lines(file).length}`);
      realSync(fd, cb);
    }) as typeof fs.fdatasync);
    const acked = j.ack(0, 3, 'h0').then(() => order.push('ack'));
    await acked;
    expect(order).toEqual(['sync 1', 'ack']);
    expect(spy).toHaveBeenCalledWith(Reflect.get(j, 'fd'), expect.any(Function));
    spy.mockRestore();
    j.close();
    expect(lines(file)).toEqual(['{"b":0,"n":3,"h":"h0"}']);
  });

  it('a failed fdatasync fails the journal (the line is not counted as durable)', async () => {
    const { file, j } = open();
    vi.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, cb: (e: Error | null) => void) => {
      setImmediate(() => cb(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' })));
    }) as unknown as typeof fs.fdatasync);
    await j.ack(0, 3, 'h0');
    vi.restoreAllMocks();
    expect(j.failed?.message).toBe(`cannot write the journal ${file} (EIO)`);
    j.close();
  });

  it('a short write is completed: the rest of the group is written before the sync', async () => {
    const { file, j } = open();
    const realWrite = fs.write;
    let calls = 0;
    // The kernel may take part of a buffer (a file-size limit, a signal): 7 bytes at a time.
    vi.spyOn(fs, 'write').mockImplementation(((
      fd: number,
      buf: Buffer,
      off: number,
      len: number,
      pos: null,
      cb: (e: Error | null, n: number) => void,
    ) => {
      calls++;
      // a continuation from the wrong place fails the journal at once instead of throwing here
      if (off < 0 || len < 0 || off + len > buf.length) return cb(new RangeError(`write ${off}+${len}`), 0);
      return realWrite(fd, buf, off, Math.min(len, 7), pos, cb);
    }) as unknown as typeof fs.write);
    const acks = [j.ack(0, 3, 'h0'), j.ack(1, 4, 'h1'), j.ack(2, 5, 'h2')];
    await Promise.all(acks);
    vi.restoreAllMocks();
    expect(j.failed).toBeUndefined();
    expect(calls).toBeGreaterThan(3);
    j.close();
    expect(lines(file)).toEqual(['{"b":0,"n":3,"h":"h0"}', '{"b":1,"n":4,"h":"h1"}', '{"b":2,"n":5,"h":"h2"}']);
  });

  it('an ack after a failed write resolves (it is not left waiting for a write that never comes)', async () => {
    const { j } = open();
    const real = Reflect.get(j, 'fd') as number;
    const full = fs.openSync('/dev/full', 'w');
    Reflect.set(j, 'fd', full);
    await j.ack(0, 1, 'h');
    expect(j.failed).toBeInstanceOf(JournalWriteError);
    const late = tracked(j.ack(1, 1, 'h'));
    await settle();
    expect(late.done).toBe(true);
    Reflect.set(j, 'fd', real);
    fs.closeSync(full);
    j.close();
  });

  it('an ack after close() resolves through the background path, writes nothing and fails nothing', async () => {
    const { file, j } = open();
    j.close();
    const late = tracked(j.ack(0, 1, 'h'));
    await settle();
    expect(late.done).toBe(true);
    expect(j.failed).toBeUndefined();
    expect(lines(file)).toEqual([]);
  });

  it('lines dropped by a closed or failed journal stay dropped: no later flush writes them', async () => {
    // The background path: an ack after close() is dropped; if it were kept, a journal given a
    // file again would write it with the next line.
    const a = open();
    a.j.close();
    void a.j.ack(7, 1, 'stray');
    await settle();
    Reflect.set(a.j, 'fd', fs.openSync(a.file, 'a'));
    a.j.ack(8, 1, 'next');
    a.j.flush();
    expect(lines(a.file)).toEqual(['{"b":8,"n":1,"h":"next"}']);
    fs.closeSync(Reflect.get(a.j, 'fd') as number);
    // The synchronous path: a flush of a failed journal drops its lines too.
    const b = open();
    Reflect.set(b.j, 'failed', new JournalWriteError('failed'));
    b.j.ack(7, 1, 'stray');
    b.j.flush();
    Reflect.set(b.j, 'failed', undefined);
    b.j.ack(8, 1, 'next');
    b.j.flush();
    expect(lines(b.file)).toEqual(['{"b":8,"n":1,"h":"next"}']);
    b.j.close();
  });
});
