// Uploading and syncing hashed members through the real CLI against the sandbox, whose
// audiences keep their exact members: after any sequence of syncs the audience equals the last
// file (checked digest by digest against node:crypto), only the difference is sent (counted in
// the sandbox), --plan answers by exit code, and a SIGKILLed sync resumes losing nothing;
// uploads deliver every record through 5xx, 429s, dropped connections and short counts, and
// resume from their journal after SIGKILL or Ctrl-C; the files people really have (a CRM export
// with BOM, CRLF and quoted notes) upload whole; and the sandbox's users endpoints keep the
// service's rules. Flags, refusals before sending and output words: test/unit/verbs/audience-members.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/audiences/normalize.js';
import { startAdsSandbox, type AdsReply, type AdsSandbox } from '../helpers/ads.js';
import { journalPast, pendingJournal, range, sandboxMembers, seedAudience, sha } from '../helpers/audiences.js';
import { tempDir, xctl } from '../helpers/cli.js';
import { spawnCli } from '../helpers/receiver.js';

let t: AdsSandbox;
let dir: string;
let n = 0;

beforeAll(async () => {
  t = await startAdsSandbox();
  dir = tempDir('xctl-members-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh, empty custom audience (or do-not-reach list) in sandbox state. */
const audience = (kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences') =>
  seedAudience(t, `cs${++n}${Date.now().toString(36)}`, kind);
const members = (id: string, kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences') =>
  sandboxMembers(t, id, kind);
const size = (id: string, kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences') =>
  t.sb.app.state.collection(kind).get(id)!.audience_size;

/** Writes emails (indices) as lines; `dupes` adds case/space variants of some. Returns the expected digests. */
function emailFile(ids: number[], dupes: number[] = [], name = `f${++n}.txt`): { file: string; digests: string[] } {
  const lines = ids.map((i) => `user${i}@example.com`);
  for (const i of dupes) lines.push(` USER${i}@Example.COM `);
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, digests: [...new Set(ids.map((i) => sha(`user${i}@example.com`)))].sort() };
}
const json = (stdout: string) => JSON.parse(stdout) as Record<string, number | string | boolean>;

describe('audiences sync', () => {
  it('200,000 rows, then 5% added and 5% removed: only those are sent, and the audience equals the file; --plan sends nothing and draws no progress, a real sync does', async () => {
    const id = audience();
    const a = emailFile(range(0, 198_000), range(100_000, 102_000)); // 200,000 rows, 198,000 members
    const env = { XCTL_PROGRESS_INTERVAL_MS: '1' }; // issue 29 item 8
    let r = await t.run(xctl`audiences sync ${id} ${a.file} --type email --plan -o json`, { env });
    expect(r.code, r.stderr).toBe(10);
    expect(r.stderr).not.toContain('"progress"');
    const plan = json(r.stdout);
    expect(plan).toMatchObject({
      first_sync: true,
      read: 200_000,
      members: 198_000,
      adds: 198_000,
      removes: 0,
      requests: 80,
      acknowledged: 0,
    });
    expect(plan.snapshot).toBe(
      path.join(t.configDir, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`),
    );
    expect(r.stderr).toContain('the first sync uploads all 198000 members');
    expect((await members(id)).requests).toBe(0);

    r = await t.run(xctl`audiences sync ${id} ${a.file} --type email -o json`, { env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('"progress"');
    expect(json(r.stdout)).toMatchObject({
      first_sync: true,
      adds: 198_000,
      removes: 0,
      requests: 80,
      acknowledged: 198_000,
    });
    let m = await members(id);
    expect(m).toMatchObject({ size: 198_000, requests: 80, updated: 198_000, deleted: 0 });
    expect(m.members.email).toEqual(a.digests);

    // The plan of a change is proven on small files (--plan needs no credentials, below): here the sync itself.
    const b = emailFile([...range(9_900, 198_000), ...range(198_000, 207_900)], range(100_000, 102_000));
    r = await t.run(xctl`audiences sync ${id} ${b.file} --type email -o json`, { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({
      first_sync: false,
      members_before: 198_000,
      members: 198_000,
      adds: 9_900,
      removes: 9_900,
      requests: 8,
      acknowledged: 19_800,
    });
    m = await members(id);
    // 4 Delete requests and 4 Update requests: nothing else reached the service
    expect(m).toMatchObject({ size: 198_000, requests: 88, updated: 198_000 + 9_900, deleted: 9_900 });
    expect(m.members.email).toEqual(b.digests);
    expect(t.sb.app.state.collection('custom_audiences').get(id)!.audience_size).toBe(198_000);

    r = await t.run(xctl`audiences sync ${id} ${b.file} --type email -o json`);
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ adds: 0, removes: 0, requests: 0 });
    expect(r.stderr).toContain('in sync: 198000 members, nothing to send');
    expect((await members(id)).requests).toBe(88);
  }, 240_000);

  it('a sync killed with SIGKILL mid-way resumes its plan and loses nothing; later syncs stay exact', async () => {
    const id = audience();
    await t.run(xctl`audiences sync ${id} ${emailFile(range(0, 8_000)).file} --type email`, { timeoutMs: 60_000 });
    // 4,000 removes and 12,000 adds: 160 requests of 100, as many as the kill needs around it
    const next = emailFile([...range(4_000, 8_000), ...range(50_000, 62_000)]);
    const args = xctl`audiences sync ${id} ${next.file} --type email --batch-size 100 --concurrency 2 --max-removes
      100% -o json`;
    const journal = pendingJournal(t.configDir, t.sb.seed.account_id, id);
    // The kill point does not depend on the machine's speed (issue 43): the sandbox never answers
    // the 50th request (`hold`; it is dropped, not applied, when the client dies), and the client
    // is killed once its journal has 70 lines. The journal keeps lines in the order they were
    // recorded, so a client that journaled a batch when it sent it, not when the service
    // acknowledged it, has the held batch among those 70: the resume skips it, and its members are
    // missing below, every run. drop_if_gone: a request the kill cuts short is not applied either.
    await t.admin('POST', '/_sandbox/faults', { hold: 50, match: '/users$', drop_if_gone: true });
    const child = spawnCli(args, t.env);
    await journalPast(journal, 70); // into the adds, past the held request
    await child.stop('SIGKILL');
    await t.admin('DELETE', '/_sandbox/faults');
    // Acknowledged = whole journal records after the header. A record the kill tore in half is
    // not one: the resume drops it and sends that batch again, as it must.
    const acked = fs
      .readFileSync(journal, 'utf8')
      .split('\n')
      .slice(1, -1)
      .filter((l) => {
        try {
          JSON.parse(l);
          return true;
        } catch {
          return false;
        }
      }).length;
    expect(acked).toBeGreaterThan(40);
    expect(acked).toBeLessThan(160);
    const before = await members(id);

    // The pending plan meets today's guard (issue 40 item 7): 4000 of 8000 is past the default 10%.
    let r = await t.run(xctl`audiences sync ${id} ${next.file} --type email --plan -o json`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/interrupted sync pending here .* would remove 4000 of the audience's 8000 members/);
    r = await t.run(xctl`audiences sync ${id} ${next.file} --type email --plan --max-removes 100% -o json`);
    expect(r.code).toBe(10);
    expect(r.stderr).toContain('an interrupted sync is pending (4000 removes, 12000 adds)');
    expect(json(r.stdout)).toMatchObject({ adds: 0, removes: 0 }); // once it is finished, the file is matched

    r = await t.run(args, { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('finishing an interrupted sync first (4000 removes, 12000 adds)');
    // The finished plan's adds and removes are the run's (issue 40 item 9), and the service agrees.
    expect(json(r.stdout)).toMatchObject({ adds: 12000, removes: 4000, audience_size: 16000, snapshot_members: 16000 });
    const after = await members(id);
    expect(after.members.email).toEqual(next.digests);
    // Only the batches the journal did not hold went again: those in flight at the kill, and
    // those acknowledged but still waiting for the journal's group commit (how many depends on
    // the disk and the load, so it is not bounded here). Within two either way: a request the
    // sandbox was still serving at the kill may be counted after `before` was read. Sending
    // everything again would be 160, far outside.
    expect(after.requests - before.requests).toBeGreaterThanOrEqual(160 - acked - 2);
    expect(after.requests - before.requests).toBeLessThanOrEqual(160 - acked + 2);
    // Every batch the journal holds was applied (4: the first sync's requests).
    expect(before.requests - 4).toBeGreaterThanOrEqual(acked);
    expect(fs.existsSync(path.dirname(journal))).toBe(false);

    // Any sequence after that stays exact.
    for (const ids of [range(70_000, 75_000), [...range(0, 100), ...range(70_000, 76_000)], range(1, 2)]) {
      const f = emailFile(ids);
      r = await t.run(xctl`audiences sync ${id} ${f.file} --type email --max-removes 100% -o json`, {
        timeoutMs: 60_000,
      });
      expect(r.code, r.stderr).toBe(0);
      expect((await members(id)).members.email).toEqual(f.digests);
    }
  }, 240_000);

  it('Ctrl-C drains the batches in flight, keeps the plan and exits 130; the next sync finishes it', async () => {
    const id = audience();
    const f = emailFile(range(0, 20_000));
    const args = xctl`audiences sync ${id} ${f.file} --type email --batch-size 250 --concurrency 2`;
    const journal = pendingJournal(t.configDir, t.sb.seed.account_id, id);
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 20, match: '/users$' });
    const child = spawnCli(args, t.env);
    await journalPast(journal, 5);
    const code = await child.stop('SIGINT');
    const stderr = child.stderr();
    await t.admin('DELETE', '/_sandbox/faults');
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(
      /stopped after draining the batches in flight: \d+ of 20000 valid records acknowledged; run the sync again: it finishes this plan first/,
    );
    expect(stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    // What a run killed at a bad moment leaves behind is swept by the next one.
    const stem = path.join(path.dirname(path.dirname(journal)), `${id}.email`);
    for (const leftover of [`${stem}.sort-999999-x`, `${stem}.pending.tmp-x`]) fs.mkdirSync(leftover);
    const r = await t.run([...args, '-o', 'json'], { timeoutMs: 60_000 });
    expect(fs.readdirSync(path.dirname(stem)).filter((f) => f.startsWith(`${id}.`))).toEqual([`${id}.email.snapshot`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('finishing an interrupted sync first');
    expect((await members(id)).members.email).toEqual(f.digests);
  }, 120_000);

  it('--plan needs no credentials and no network; exit 0 in sync, 10 with changes', async () => {
    const env = {
      XCTL_API_KEY: undefined,
      XCTL_API_SECRET: undefined,
      XCTL_ACCESS_TOKEN: undefined,
      XCTL_ACCESS_TOKEN_SECRET: undefined,
      XCTL_BASE_URL: 'http://127.0.0.1:9',
    };
    const id = audience();
    const f = emailFile(range(0, 10));
    let r = await t.run(xctl`audiences sync ${id} ${f.file} --type email --plan`, { env });
    expect(r.code, r.stderr).toBe(10);
    expect(r.stderr).not.toMatch(/error/);
    r = await t.run(xctl`audiences sync ${id} ${f.file} --type email --verbose`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/POST .*\/users/); // the --verbose trace, with every secret redacted
    for (const secret of [t.env.XCTL_API_SECRET, t.env.XCTL_ACCESS_TOKEN_SECRET, t.env.XCTL_ACCESS_TOKEN])
      expect(r.stdout + r.stderr).not.toContain(secret);
    r = await t.run(xctl`audiences sync ${id} ${f.file} --type email --plan`, { env });
    expect(r.code, r.stderr).toBe(0);
    r = await t.run(xctl`audiences sync ${id} ${emailFile(range(0, 11)).file} --type email --plan -o json`, { env });
    expect(r.code).toBe(10);
    expect(json(r.stdout)).toMatchObject({ adds: 1, removes: 0, members_before: 10 });
  });

  it('--from-upload seeds the snapshot from a finished upload (nothing sent); --rebuild uploads everything again', async () => {
    const id = audience();
    const f = emailFile(range(0, 3000));
    const journal = path.join(dir, `up${n}.journal`);
    let r = await t.run(xctl`audiences upload ${id} ${f.file} --type email --journal ${journal}`);
    expect(r.code, r.stderr).toBe(0);
    expect((await members(id)).requests).toBe(1); // 3000 users fit in one default request
    r = await t.run(xctl`audiences sync ${id} ${f.file} --type email --from-upload ${journal} -o json`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`snapshot seeded from the upload journal ${journal}: 3000 members`);
    expect(json(r.stdout)).toMatchObject({ first_sync: false, members_before: 3000, adds: 0, removes: 0, requests: 0 });
    expect((await members(id)).requests).toBe(1);
    const g = emailFile(range(100, 3100));
    r = await t.run(xctl`audiences sync ${id} ${g.file} --type email -o json`);
    expect(json(r.stdout)).toMatchObject({ adds: 100, removes: 100, requests: 2 });
    expect((await members(id)).members.email).toEqual(g.digests);
    r = await t.run(xctl`audiences sync ${id} ${g.file} --type email --rebuild -o json`);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({
      first_sync: false,
      adds: 3000,
      removes: 0,
      requests: 2,
      audience_size: 3000,
    });
    expect((await members(id)).members.email).toEqual(g.digests);

    // An unfinished or foreign journal is refused.
    r = await t.run(xctl`audiences sync ${audience()} ${f.file} --type email --from-upload ${journal}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is of an upload to audience .* not /);
    fs.appendFileSync(f.file, 'changed@example.com\n');
    r = await t.run(xctl`audiences sync ${id} ${f.file} --type email --from-upload ${journal}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is gone or has changed since/);
  }, 120_000);

  it('warns a year after members were sent (the service expires them at 13 months); --refresh sends them all again', async () => {
    const id = audience();
    const f = emailFile(range(0, 300));
    expect((await t.run(xctl`audiences sync ${id} ${f.file} --type email`)).code).toBe(0);
    const snap = path.join(t.configDir, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`);
    const header = () =>
      JSON.parse(fs.readFileSync(snap).subarray(0, 512).toString().slice('xctl-audience-snapshot 1\n'.length)) as {
        oldest_sent_at: string;
      };
    // Age the snapshot: its header is fixed-size text, so a date of the same length drops in.
    const year = Number(header().oldest_sent_at.slice(0, 4));
    const aged = fs.readFileSync(snap);
    aged.write(`"oldest_sent_at":"${year - 2}`, aged.indexOf(`"oldest_sent_at":"${year}`), 'latin1');
    fs.writeFileSync(snap, aged);
    let r = await t.run(xctl`audiences sync ${id} ${f.file} --type email -o json`);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`members first sent on ${year - 2}-.* expire 13 months after: pass --refresh`));
    const before = (await members(id)).requests;
    r = await t.run(xctl`audiences sync ${id} ${emailFile(range(1, 300)).file} --type email --refresh -o json`);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ adds: 299, removes: 1, requests: 2 });
    expect((await members(id)).requests - before).toBe(2);
    expect(Number(header().oldest_sent_at.slice(0, 4))).toBe(year);
    r = await t.run(xctl`audiences sync ${id} ${emailFile(range(1, 300)).file} --type email`);
    expect(r.stderr).not.toMatch(/--refresh/);
  });
});

/** n emails with some duplicates (differing only in case and spaces): returns file and distinct count. */
function dupedEmails(count: number, name = `e${++n}.txt`): { file: string; distinct: number } {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(i % 10 === 9 ? ` USER${i - 1}@Example.com ` : `user${i}@example.com`);
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, distinct: count - Math.floor(count / 10) };
}
const summary = (stdout: string) => JSON.parse(stdout) as Record<string, number>;

describe('audiences upload', () => {
  it('uploads, dedupes, reports rejects and prints a summary', async () => {
    const id = audience();
    const file = path.join(dir, 'mixed.csv');
    fs.writeFileSync(
      file,
      'Email,Phone\na@example.com,+1 415 555 2671\nA@EXAMPLE.COM ,\nnot-an-email,\n,(415) 555-2672\n,,\n',
    );
    const rejects = path.join(dir, 'rejects.csv');
    const r = await t.run(xctl`audiences upload ${id} ${file} --default-country US --rejects ${rejects} -o json`);
    expect(r.stderr).toContain('header: Email -> email, Phone -> phone_number');
    expect(r.code).toBe(0);
    // ",," (every cell empty) is a blank line, reported as such, as it is in a quoted file
    expect(summary(r.stdout)).toMatchObject({
      lines: 5,
      read: 4,
      blank: 1,
      valid: 3,
      rejected: 1,
      sent: 3,
      acknowledged: 3,
      batches: 1,
      retries: 0,
    });
    // the phone-only user, the email+phone user, and the email-only user (same email, other user object)
    expect(size(id)).toBe(3);
    expect(fs.readFileSync(rejects, 'utf8')).toBe('line,column,reason\n4,Email,not an email address\n');
  });

  it('delivers every record through 5xx, 429s, dropped connections and short counts', async () => {
    const id = audience();
    const { file, distinct } = dupedEmails(6000);
    // Rates a batch survives within its 8 attempts: an attempt fails with p = 1 - 0.96*0.92*0.92
    // = 0.19, all 8 of a batch with 0.19^8 = 2e-6 (x 60 batches: 1e-4 per run), while no fault at
    // all in 60 batches is 0.81^60 = 3e-6. At 0.15/0.1/0.15 the run failed about once in 70.
    await t.admin('POST', '/_sandbox/faults', {
      error_rate: 0.08,
      status: 503,
      drop_rate: 0.04,
      short_count_rate: 0.08,
      match: '/users$',
    });
    const r = await t.run(xctl`audiences upload ${id} ${file} --type email --batch-size 100 --concurrency 6 -o json`, {
      timeoutMs: 60_000,
    });
    const injected = (await t.admin<{ injected: number }>('GET', '/_sandbox/faults')).injected;
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r.code, r.stderr).toBe(0);
    const s = summary(r.stdout);
    expect(s).toMatchObject({ read: 6000, valid: 6000, acknowledged: 6000, batches: 60 });
    expect(injected).toBeGreaterThan(0);
    expect(s.retries).toBeGreaterThan(0);
    expect(size(id)).toBe(distinct);

    // 429s answered while the window still has room are retried like any overload (0.2^8 x 12
    // batches: 3e-5 per run)
    const id2 = audience();
    await t.admin('POST', '/_sandbox/faults', { error_rate: 0.2, status: 429, match: '/users$' });
    const r2 = await t.run(xctl`audiences upload ${id2} ${file} --type email --batch-size 500 -o json`);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r2.code, r2.stderr).toBe(0);
    expect(size(id2)).toBe(distinct);
  });

  it('gives up when the rate-limit window is spent (exit 4, says how to resume), then resumes', async () => {
    const id = audience();
    const { file, distinct } = dupedEmails(3000);
    await t.admin('POST', '/_sandbox/faults', { rate_limit: 3 });
    const r = await t.run(
      xctl`--max-wait 0 audiences upload ${id} ${file} --type email --batch-size 500 --concurrency 1`,
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/gave up on batch 4: .*Rate limit exceeded.*1500 of \d+ valid records acknowledged/);
    expect(r.stderr).toMatch(/hint: re-run the same command to resume from the journal .*upload-[0-9a-f]+\.jsonl/);
    await t.admin('DELETE', '/_sandbox/faults');
    const again = await t.run(
      xctl`--max-wait 0 audiences upload ${id} ${file} --type email --batch-size 500 --concurrency 1 -o json`,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming from journal .*: 3 batches \(1500 records\) already acknowledged/);
    expect(summary(again.stdout)).toMatchObject({ resumed_batches: 3, batches: 3, acknowledged: 3000 });
    expect(size(id)).toBe(distinct);
    // a completed upload leaves no default journal behind
    expect(fs.readdirSync(path.join(t.configDir, 'journals'))).toEqual([]);
  });

  it('resumes a run killed with SIGKILL mid-upload without losing a record', async () => {
    const id = audience();
    const { file, distinct } = dupedEmails(16_000);
    const journal = path.join(dir, 'kill.journal');
    const args = xctl`audiences upload ${id} ${file} --type email --batch-size 100 --concurrency 2 --journal
      ${journal} -o json`;
    // A kill point that does not depend on the machine's speed (issue 43): the sandbox never
    // answers the 5th request (`hold`; dropped, not applied, when the client dies), and the client
    // is killed once its journal has 20 lines. The journal keeps lines in the order they were
    // recorded, so a batch journaled when it was sent, not when the service acknowledged it, is
    // among those 20: the resume skips it and its members are missing below, every run.
    await t.admin('POST', '/_sandbox/faults', { hold: 5, match: '/users$', drop_if_gone: true });
    const child = spawnCli(args, t.env);
    await journalPast(journal, 20);
    await child.stop('SIGKILL');
    await t.admin('DELETE', '/_sandbox/faults');
    const acked = fs.readFileSync(journal, 'utf8').trim().split('\n').length - 1;
    expect(acked).toBeGreaterThan(0);
    expect(acked).toBeLessThan(160);
    const r = await t.run(args, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`resuming from journal ${journal}`);
    const s = summary(r.stdout);
    expect(s.resumed_batches).toBeGreaterThanOrEqual(acked);
    expect(s.resumed_batches + s.batches).toBe(160);
    expect(size(id)).toBe(distinct);
    // digest by digest: the members are exactly the file's normalized, hashed addresses
    const got = (
      await t.admin<{ data: { members: Record<string, string[]> } }>(
        'GET',
        `/_sandbox/audience-members/custom_audiences/${id}`,
      )
    ).data.members.email!;
    const want = [
      ...new Set(
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => sha256Hex(l.trim().toLowerCase())),
      ),
    ].sort();
    expect([...got].sort()).toEqual(want);
  });

  it('Ctrl-C drains the batches in flight, saves the journal and exits 130; the same command resumes', async () => {
    const id = audience();
    const { file, distinct } = dupedEmails(20_000);
    const args = xctl`audiences upload ${id} ${file} --type email --batch-size 250`;
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 30, match: '/users$' });
    const child = spawnCli(args, { ...t.env, XCTL_PROGRESS_INTERVAL_MS: '50' });
    await child.waitStderr(/"acknowledged":[1-9]/);
    const code = await child.stop('SIGINT');
    const stderr = child.stderr();
    await t.admin('DELETE', '/_sandbox/faults');
    expect(code).toBe(130);
    expect(stderr).toMatch(
      /\{"progress":\{"read":\d+,"acknowledged":\d+,"records_per_s":\d+,"percent":[\d.]+,"eta_s":/,
    );
    expect(stderr).toMatch(
      /stopped after draining the batches in flight: \d+ of \d+ valid records acknowledged; re-run the same command to resume/,
    );
    const r = await t.run([...args, '-o', 'json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(summary(r.stdout).resumed_batches).toBeGreaterThan(0);
    expect(size(id)).toBe(distinct);
  });

  it('by default fills requests to 4,900,000 bytes; a run killed between them resumes from its journal', async () => {
    const id = audience();
    const { file, distinct } = dupedEmails(130_000);
    const journal = path.join(dir, 'full.journal');
    // three requests: 62,024 + 62,024 + 5,952 users; one at a time, each held 300 ms by the sandbox
    const args = xctl`audiences upload ${id} ${file} --type email --concurrency 1 --journal ${journal} -o json`;
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 300, match: '/users$', drop_if_gone: true });
    const child = spawnCli(args, t.env);
    await journalPast(journal, 2, 30_000); // the header and the first acknowledged batch
    await child.stop('SIGKILL');
    await t.admin('DELETE', '/_sandbox/faults');
    const acked = fs.readFileSync(journal, 'utf8').trim().split('\n').slice(1);
    expect(acked.length).toBeGreaterThanOrEqual(1);
    expect(acked.length).toBeLessThan(3);
    expect(JSON.parse(acked[0]!)).toMatchObject({ b: 0, n: 62_024 });
    const r = await t.run(args, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const s = summary(r.stdout);
    expect(s.resumed_batches).toBe(acked.length);
    expect(s.resumed_batches + s.batches).toBe(3);
    expect(s.acknowledged).toBe(130_000);
    expect(size(id)).toBe(distinct);
  });

  it('reads stdin (resumable with --journal), passes --hashed digests, and --delete removes users', async () => {
    const id = audience();
    const digests = ['a@example.com', 'b@example.com', 'c@example.com'].map((e) => sha256Hex(e).toUpperCase());
    const journal = path.join(dir, 'stdin.journal');
    const r = await t.run(xctl`audiences upload ${id} - --type email --hashed --journal ${journal} -o json`, {
      input: digests.join('\n') + '\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(size(id)).toBe(3);
    expect(fs.readFileSync(journal, 'utf8')).toMatch(/"done":true/);
    const d = await t.run(xctl`audiences upload ${id} - --type email --delete -o json`, {
      input: 'B@example.com\n',
    });
    expect(d.code, d.stderr).toBe(0);
    expect(d.stderr).toContain('cannot be resumed');
    expect(size(id)).toBe(2);
  });
});

describe('audiences do-not-reach upload', () => {
  it('uploads emails and phone numbers built from named columns', async () => {
    const id = audience('do_not_reach_lists');
    const file = path.join(dir, 'dnr.tsv');
    fs.writeFileSync(
      file,
      'name\tmail\tmobile\nAda\tada@example.com\t+44 20 7946 0958\nBob\tbob@example.com\t\nCy\t\t+1 415 555 2671\n',
    );
    const r = await t.run(
      xctl`audiences do-not-reach upload ${id} ${file} --column email=mail --column phone_number=mobile -o json`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(summary(r.stdout)).toMatchObject({ read: 3, valid: 3, acknowledged: 3 });
    expect(size(id, 'do_not_reach_lists')).toBe(3);
  });
});

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
    const r = await t.run(xctl`audiences upload ${id} ${write('crm.csv', c.text)} --default-country US -o json`);
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
    const r = await t.run(xctl`audiences upload ${id} ${write('crm-bad.csv', c.text)} --default-country US -o json`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`line ${line}: a quoted field starts here`);
    expect(r.stderr).toContain('--lenient-quotes');
    expect((await members(id)).requests).toBe(0);
    // --lenient-quotes reads it the old way and says how many lines were joined
    const lenient = await t.run(
      xctl`audiences upload ${audience()} ${path.join(dir, 'crm-bad.csv')} --default-country US --lenient-quotes
        --dry-run -o json`,
    );
    expect(lenient.code, lenient.stderr).toBe(0);
    const s = JSON.parse(lenient.stdout);
    expect(s.lines).toBe(s.read + s.blank + s.joined_lines);
    expect(lenient.stderr).toMatch(/\d+ lines joined into quoted fields/);
  });

  it('a quote never closed far into a file: found before sending (exit 2); from stdin: exit 4, resumable', async () => {
    const id = audience();
    // 1.8 MB: the fault (at 1.45 MB) lies past two 512 KB chunks and the first 1 MB read.
    const c = crm(20_000, { row: 16_000 });
    const f = write('crm-late.csv', c.text);
    const line = 2 + 16_000 + 3200;
    // a file is read through for quote faults before anything is sent
    const file = await t.run(xctl`audiences upload ${id} ${f} --default-country US -o json`);
    expect(file.code, file.stderr).toBe(2);
    expect(file.stderr).toContain(`line ${line}: a quoted field starts here`);
    expect((await members(id)).requests).toBe(0);
    // stdin cannot be read twice: the run stops where the fault is, with its journal
    const journal = path.join(dir, 'late.journal');
    const args = xctl`audiences upload ${id} - --default-country US --journal ${journal} --batch-size 1000 -o json`;
    const r = await t.run(args, { input: c.text });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`line ${line}: a quoted field starts here`);
    expect(r.stderr).toContain('--lenient-quotes to resume');
    const sent = (await members(id)).size;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(16_000);
    const again = await t.run([...args, '--lenient-quotes'], { input: c.text });
    expect(again.code, again.stderr).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.resumed_batches).toBeGreaterThan(0);
    expect(s.lines).toBe(s.read + s.blank + s.joined_lines);
    expect((await members(id)).size).toBeGreaterThan(16_000);
  });

  it('30% bad emails with --max-reject-rate 0.1: refused, nothing sent; the default gate too', async () => {
    const id = audience();
    const rows = Array.from({ length: 2000 }, (_, i) => (i % 10 < 3 ? `bad-${i}` : `u${i}@example.com`));
    const f = write('bad.csv', 'email\n' + rows.join('\n') + '\n');
    const r = await t.run(xctl`audiences upload ${id} ${f} --max-reject-rate 0.1 -o json`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      '600 of the first 2000 values were rejected (30%), more than --max-reject-rate 0.1: nothing was sent',
    );
    expect((await members(id)).requests).toBe(0);
    const d = await t.run(xctl`audiences upload ${id} ${f} -o json`);
    expect(d.code, d.stderr).toBe(2);
    expect(d.stderr).toContain('more than the 20% allowed by default');
    const off = await t.run(xctl`audiences upload ${id} ${f} --max-reject-rate 1 -o json`);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ read: 2000, valid: 1400, rejected: 600, reject_rate: 0.3 });
    // sync takes the same gate
    const sync = await t.run(xctl`audiences sync ${audience()} ${f} --max-reject-rate 0.1 -o json`);
    expect(sync.code, sync.stderr).toBe(2);
  });

  it('an unmapped column of emails is exit 2 naming it; --ignore-column or --column settles it', async () => {
    const id = audience();
    const f = write(
      'two.csv',
      'Phone,Work Contact\n+1 415 555 0100,ann@example.com\n+1 415 555 0101,bob@example.com\n',
    );
    const r = await t.run(xctl`audiences upload ${id} ${f}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'column "Work Contact" is not mapped to any type, but 2 of its 2 sampled values look like email addresses: nothing was sent',
    );
    expect(r.stderr).toContain('--column email="Work Contact"');
    expect(r.stderr).toContain('--ignore-column "Work Contact"');
    const ok = await t.run(
      xctl`audiences upload ${id} ${f} --column phone_number=Phone --column ${'email=Work Contact'} -o json`,
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect((await members(id)).size).toBe(2);
  });
});

// The sandbox's audience users endpoints: body shape, hashing rule, operation and byte limits,
// time rules, do-not-reach restrictions, account association, all-or-nothing batches, the
// short-count fault and the rate-limit category. Two requests go through `xctl request --ads`
// (signed by the CLI: headers shown, a wrong account exit 1); the rest are signed straight to
// the sandbox (its rules, not the CLI's, are what they prove).
describe('the sandbox users endpoints', () => {
  let acct: string;
  beforeAll(() => {
    acct = t.sb.seed.account_id;
    for (const [kind, id] of [
      ['custom_audiences', 'ca1'],
      ['custom_audiences', 'ca2'],
      ['do_not_reach_lists', 'dnr1'],
    ] as const)
      seedAudience(t, id, kind);
    t.sb.app.state
      .collection('accounts')
      .set('other1', { id: 'other1', name: 'Not yours', user_ids: ['783214'], deleted: false });
  });

  const CA = (id = 'ca1', account = acct) => `/12/accounts/${account}/custom_audiences/${id}/users`;
  const DNR = () => `/12/batch/accounts/${acct}/do_not_reach_lists/dnr1/users`;
  const h = (s: string) => sha256Hex(s);
  /** Through the CLI: `xctl request --ads -X POST path --body -`. */
  const request = (p: string, body: unknown, extra: string[] = []) =>
    t.run(xctl`request --ads -X POST ${p} --body - ${extra}`, { input: JSON.stringify(body) });
  /**
   * Signed straight to the sandbox: its status, its first error (request-level `errors`, else the
   * first item-level one of `operation_errors`), the index of that item, and its data.
   */
  const post = async (p: string, body: unknown) => {
    const r = await t.signed<AdsReply & { data?: unknown }>('POST', p, body);
    const items = r.body.operation_errors;
    const index = items?.findIndex((e) => (e?.length ?? 0) > 0);
    return {
      status: r.status,
      error: r.body.errors?.[0] ?? (index !== undefined ? items![index]![0] : undefined),
      index,
      data: r.body.data,
    };
  };
  const upd = (users: unknown[], params: Record<string, unknown> = {}) => ({
    operation_type: 'Update',
    params: { ...params, users },
  });

  it('counts distinct users; service_id is twitter_id; partner_user_id is not hashed; Delete removes', async () => {
    const r = await request(
      CA(),
      [
        upd([
          { service_id: [h('783214')] },
          { twitter_id: [h('783214')] },
          { partner_user_id: ['crm-1'] },
          { email: [h('a@example.com')], phone_number: [h('14155552671')] },
        ]),
      ],
      ['-i'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      request: { params: { account_id: acct, custom_audience_id: 'ca1' } },
      data: { success_count: 4, total_count: 4 },
    });
    expect(r.stderr).toMatch(/x-rate-limit-limit: 1500/);
    expect(size('ca1')).toBe(3);
    const d = await post(CA(), [{ operation_type: 'Delete', params: { users: [{ twitter_id: [h('783214')] }] } }]);
    expect(d.status).toBe(200);
    expect(size('ca1')).toBe(2);
  });

  it('rejects whole batches that break a rule, applying nothing', async () => {
    const good = upd([{ email: [h('new@example.com')] }]);
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[unknown, RegExp]> = [
      [[good, upd([{ email: [h('x').toUpperCase()] }])], /must be SHA-256 hashed/],
      [[good, upd([{ email: ['plain@example.com'] }])], /must be SHA-256 hashed/],
      [[good, upd([{ fax: [h('1')] }])], /unknown identifier type "fax"/],
      [[good, upd([])], /users must be a non-empty array/],
      [
        [good, { operation_type: 'Create', params: { users: [{ email: [h('1')] }] } }],
        /operation_type must be Update or Delete/,
      ],
      [
        [upd([{ email: [h('1')] }], { effective_at: iso(now + 86400_000), expires_at: iso(now) })],
        /expires_at must be after effective_at/,
      ],
      [[upd([{ email: [h('1')] }], { expires_at: iso(now + 400 * 86400_000) })], /at most 13 months/],
      [Array.from({ length: 2501 }, () => good), /At most 2500 operations/],
      [{ not: 'an array' }, /non-empty JSON array/],
    ];
    const before = size('ca2');
    const rs = await Promise.all(cases.map(([body]) => post(CA('ca2'), body)));
    rs.forEach((r, i) => {
      const what = JSON.stringify(cases[i]![0]).slice(0, 200);
      expect([r.status, r.error?.code], what).toEqual([400, 'INVALID_PARAMETER']);
      expect(r.error?.message, what).toMatch(cases[i]![1]);
    });
    // docs/contract.md, ads 7: an item's failure is in operation_errors at the item's index (the second
    // operation here); a failure of the request as a whole stays in errors.
    expect(rs.slice(0, 5).map((r) => r.index)).toEqual([1, 1, 1, 1, 1]);
    expect(rs.slice(5, 7).map((r) => r.index)).toEqual([0, 0]);
    expect(rs.slice(7).map((r) => r.index)).toEqual([undefined, undefined]);
    expect(size('ca2')).toBe(before);
  });

  it('refuses bodies over 5,000,000 bytes; takes one of exactly 5,000,000', async () => {
    const users = Array.from({ length: 66_000 }, (_, i) => ({ email: [h(String(i))] }));
    const r = await post(CA('ca2'), [upd(users)]);
    expect(r.status).toBe(413);
    expect(r.error?.message).toMatch(/exceeds 5000000 bytes/);
    // 63,000 hashed emails and one partner_user_id (sent as is) that brings the body to the byte
    const body = (pad: number) => [upd([...users.slice(0, 63_000), { partner_user_id: ['p'.repeat(pad)] }])];
    const pad = 5_000_000 - JSON.stringify(body(0)).length;
    expect(pad).toBeGreaterThan(0);
    const over = await post(CA('ca2'), body(pad + 1));
    expect([over.status, over.error?.message]).toEqual([413, 'The request body exceeds 5000000 bytes']);
    const exact = await post(CA('ca2'), body(pad));
    expect([exact.status, exact.data]).toEqual([200, { success_count: 63_001, total_count: 63_001 }]);
  });

  it('needs an account associated with the user (exit 1, not 3), and an existing audience', async () => {
    const a = await request(CA('ca1', 'other1'), [upd([{ email: [h('1')] }])]);
    expect(a.code).toBe(1); // a wrong account, not a credential problem (issue 33)
    expect(a.stderr).toMatch(/HTTP 403, code ACCOUNT_NOT_FOUND/);
    const b = await post(CA('nope'), [upd([{ email: [h('1')] }])]);
    expect([b.status, b.error?.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('short_count_rate answers with a short count and applies nothing', async () => {
    await t.admin('POST', '/_sandbox/faults', { short_count_rate: 1, match: '/users$' });
    const before = size('ca2');
    const r = await post(CA('ca2'), [upd([{ email: [h('s1')] }, { email: [h('s2')] }])]);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ success_count: 1, total_count: 2 });
    expect(size('ca2')).toBe(before);
  });

  it('do-not-reach lists take email and phone_number, no effective_at, expiry under 13 months', async () => {
    const ok = await post(DNR(), [
      upd([{ email: [h('a@example.com')] }, { phone_number: [h('14155552671')] }], {
        expires_at: new Date(Date.now() + 30 * 86400_000).toISOString(),
      }),
    ]);
    expect(ok.status).toBe(200);
    expect(size('dnr1', 'do_not_reach_lists')).toBe(2);
    const rs = await Promise.all([
      post(DNR(), [upd([{ handle: [h('jack')] }])]),
      post(DNR(), [upd([{ email: [h('b')] }], { effective_at: new Date().toISOString() })]),
      post(DNR(), [upd([{ email: [h('b')] }], { expires_at: new Date(Date.now() + 396 * 86400_000).toISOString() })]),
    ]);
    expect(rs.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(rs[0]!.error?.message).toMatch(/do-not-reach lists take email and phone_number/);
    expect(rs[1]!.error?.message).toMatch(/effective_at is not accepted/);
    expect(rs[2]!.error?.message).toMatch(/less than 13 months ahead/);
    expect(size('dnr1', 'do_not_reach_lists')).toBe(2);
  });
});
