// Issue 40: `audiences sync` and `audiences apply` exit 0 only when the service's audience equals
// the file's valid rows, on any runner, whatever happened before. Each scenario of the issue runs
// through the real CLI against a real sandbox, fresh state folders standing in for fresh CI
// runners (a cache restored, lost, or stale), and ends by reading the sandbox's members digest
// for digest. Every exit 0 carries the service's audience_size next to the snapshot's count.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';
import { digests, emails, range, sandboxMembers, seedAudience, writeLines } from '../helpers/audiences.js';
import { BIN, tempDir, xctl, type RunResult } from '../helpers/cli.js';

let t: AdsSandbox;
let dir: string;
let n = 0;

beforeAll(async () => {
  t = await startAdsSandbox();
  dir = tempDir('xctl-truth-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const audience = () => seedAudience(t, `tr${++n}${Date.now().toString(36)}`);
/** A fresh runner's state folder (an empty CI cache). */
const runner = () => fs.mkdtempSync(path.join(dir, 'state-'));
/** A CI cache saved from a runner's state folder, restored as a new runner's. */
const copyOf = (state: string) => {
  const to = runner();
  fs.cpSync(state, to, { recursive: true });
  return to;
};
const file = (ids: number[], extra: string[] = []) =>
  writeLines(dir, `f${++n}.csv`, ['email', ...emails(ids), ...extra]);
const sync = (id: string, f: string, state: string, extra: string[] = [], env: Record<string, string> = {}) =>
  t.run(xctl`audiences sync ${id} ${f} --type email --state-dir ${state} -o json ${extra}`, {
    timeoutMs: 60_000,
    env,
  });
const upload = (id: string, ids: number[], extra: string[] = []) =>
  t.run(xctl`audiences upload ${id} ${file(ids)} --type email ${extra}`, { timeoutMs: 60_000 });
const members = async (id: string) => (await sandboxMembers(t, id)).members.email ?? [];
const requests = async (id: string) => (await sandboxMembers(t, id)).requests;
const json = (r: RunResult) => JSON.parse(r.stdout) as Record<string, unknown>;

/** Exit 0 and the audience holds exactly these members; the summary says so with the service's size. */
async function equal(r: RunResult, id: string, ids: number[]): Promise<void> {
  expect(r.code, r.stderr).toBe(0);
  expect(await members(id)).toEqual(digests(emails(ids)));
  const s = json(r);
  expect(s.audience_size).toBe(ids.length);
  expect(s.snapshot_members).toBe(ids.length);
}

describe('issue 40: exit 0 means the audience equals the file', () => {
  it('1. a stale snapshot (night 2 not saved) is refused, nothing sent; --rebuild makes it equal', async () => {
    const id = audience();
    const night1 = runner();
    await equal(await sync(id, file(range(0, 500)), night1), id, range(0, 500));
    const cache = copyOf(night1); // night 1's state saved
    // Night 2 succeeds, but its state is not saved (the cache step failed).
    await equal(await sync(id, file(range(28, 520)), copyOf(cache)), id, range(28, 520));
    // Night 3 restores night 1's state.
    const night3 = copyOf(cache);
    const sent = await requests(id);
    let r = await sync(id, file(range(28, 524)), night3);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds 492 members, the snapshot 500 .*the snapshot .* is stale: nothing was sent/);
    expect(r.stderr).toContain('--rebuild');
    expect(await requests(id)).toBe(sent);
    expect(await members(id)).toEqual(digests(emails(range(28, 520))));
    r = await sync(id, file(range(28, 524)), night3, ['--rebuild']);
    await equal(r, id, range(28, 524));
    // The next night from that state is an ordinary one.
    await equal(await sync(id, file(range(30, 524)), night3), id, range(30, 524));
  }, 120_000);

  it("1c. --rebuild starts over from a snapshot that is not this audience's (a copied state file)", async () => {
    const [a, b] = [audience(), audience()];
    const state = runner();
    await equal(await sync(a, file(range(0, 50)), state), a, range(0, 50));
    const folder = path.join(state, 'audiences', 'default', t.sb.seed.account_id);
    fs.copyFileSync(path.join(folder, `${a}.email.snapshot`), path.join(folder, `${b}.email.snapshot`));
    let r = await sync(b, file(range(0, 20)), state);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/belongs to/);
    r = await sync(b, file(range(0, 20)), state, ['--rebuild']);
    await equal(r, b, range(0, 20));
  }, 120_000);

  it('1b. a sync stopped mid-way whose state was lost: refused, then --rebuild converges', async () => {
    const id = audience();
    const night1 = runner();
    await equal(await sync(id, file(range(0, 300)), night1), id, range(0, 300));
    const cache = copyOf(night1);
    // Night 2 stops after its first batch (10 removes) was applied, its answer lost; its state is lost.
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 400, count: 1, match: '/users$', after: true });
    const night2 = copyOf(cache);
    const first = await sync(id, file(range(14, 400)), night2, ['--batch-size', '10', '--concurrency', '1']);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(first.code).not.toBe(0);
    expect(await members(id)).toHaveLength(290);
    // Night 3 restores night 1's state: refused, nothing sent; --rebuild converges.
    const night3 = copyOf(cache);
    const sent = await requests(id);
    const r = await sync(id, file(range(14, 300)), night3);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/holds 290 members, the snapshot 300 \(10 fewer: .*stale: nothing was sent/);
    expect(await requests(id)).toBe(sent);
    await equal(await sync(id, file(range(14, 300)), night3, ['--rebuild']), id, range(14, 300));
  }, 120_000);

  it('2. hand changes to a synced audience: refused with the way out; --adopt accepts what stays (exit 5)', async () => {
    const id = audience();
    const state = runner();
    const f = file(range(0, 499));
    await equal(await sync(id, f, state), id, range(0, 499));
    // A saved plan, then someone uploads 50 by hand and deletes 30.
    const planFile = path.join(dir, `plan${++n}.json`);
    let r = await sync(id, f, state, ['--plan', '--out', planFile]);
    expect(r.code, r.stderr).toBe(0);
    expect((await upload(id, range(1000, 1050))).code).toBe(0);
    expect((await upload(id, range(0, 30), ['--delete'])).code).toBe(0);
    const sent = await requests(id);
    for (const extra of [[], ['--plan']]) {
      r = await sync(id, f, state, extra);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/holds 519 members, the snapshot 499 \(20 more: members added by hand/);
    }
    r = await t.run(xctl`audiences sync --apply ${planFile} -o json`);
    expect(r.code, r.stderr).toBe(2);
    expect(await requests(id)).toBe(sent);
    // --adopt: the file sent whole (the 30 deleted come back), the 50 no state knows stay: exit 5.
    r = await sync(id, f, state, ['--adopt']);
    expect(r.code, r.stderr).toBe(5);
    expect(json(r)).toMatchObject({ status: 'diverged', unreconciled: 50, audience_size: 549, snapshot_members: 499 });
    expect(r.stderr).toMatch(/50 more than the snapshot's 499/);
    expect(await members(id)).toEqual(digests(emails([...range(0, 499), ...range(1000, 1050)])));
    // The next night: not refused (accepted), still exit 5 while they stay.
    r = await sync(id, file(range(0, 490)), state);
    expect(r.code, r.stderr).toBe(5);
    expect(json(r)).toMatchObject({ unreconciled: 50, audience_size: 540, snapshot_members: 490 });
  }, 120_000);

  it('2b. a hand change that keeps the size (+25 -25) is repaired: the file sent whole, what stays is named', async () => {
    const id = audience();
    const state = runner();
    const f = file(range(0, 200));
    await equal(await sync(id, f, state), id, range(0, 200));
    expect((await upload(id, range(500, 525))).code).toBe(0);
    expect((await upload(id, range(0, 25), ['--delete'])).code).toBe(0);
    const r = await sync(id, f, state);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/at the same size .*every member of the file is sent again/);
    expect(json(r)).toMatchObject({ unreconciled: 25, audience_size: 225 });
    expect(await members(id)).toEqual(digests(emails([...range(0, 200), ...range(500, 525)])));
  }, 120_000);

  it('2c. apply: a hand change to a managed audience fails the plan and the apply (exit 2), not "equal"', async () => {
    const id = audience();
    const state = runner();
    const src = file(range(0, 100));
    const name = `Managed ${n}`;
    t.sb.app.state.collection('custom_audiences').get(id)!.name = name;
    const yaml = path.join(dir, `apply${n}.yaml`);
    fs.writeFileSync(yaml, `defaults:\n  type: email\naudiences:\n  - name: ${name}\n    source: ${src}\n`);
    const apply = (extra: string[] = []) =>
      t.run(xctl`audiences apply -f ${yaml} --state-dir ${state} -o json ${extra}`, { timeoutMs: 60_000 });
    let r = await apply();
    expect(r.code, r.stderr).toBe(0);
    const row = (JSON.parse(r.stdout) as { audiences: Array<Record<string, unknown>> }).audiences[0]!;
    expect(row).toMatchObject({ status: 'ok', audience_size: 100, snapshot_members: 100 });
    expect((await upload(id, range(1000, 1040))).code).toBe(0);
    expect((await upload(id, range(0, 25), ['--delete'])).code).toBe(0);
    r = await apply(['--plan']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/holds 115 members, the snapshot 100/);
    r = await apply();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/1 of 1 audiences equal/);
  }, 120_000);

  it('3. --adopt reports exactly the members beyond the file, and never exits 0 while they stay', async () => {
    const id = audience();
    expect((await upload(id, range(0, 600))).code).toBe(0);
    const state = runner();
    const f = file(range(575, 1575)); // 25 of the 600 are in the file
    let r = await sync(id, f, state);
    expect(r.code).toBe(2); // first sync to an audience with members: refused without --adopt
    r = await sync(id, f, state, ['--adopt']);
    expect(r.code, r.stderr).toBe(5);
    expect(json(r)).toMatchObject({
      adopted_size: 600,
      unreconciled: 575,
      audience_size: 1575,
      snapshot_members: 1000,
    });
    for (const ids of [range(575, 1530), range(575, 1500)]) {
      r = await sync(id, file(ids), state);
      expect(r.code, r.stderr).toBe(5);
      expect(json(r)).toMatchObject({ unreconciled: 575, snapshot_members: ids.length });
    }
  }, 120_000);

  it('4. at a terminal, removals past 10% are asked about (naming them), refused unless confirmed; --yes confirms', async () => {
    const id = audience();
    const state = runner();
    await equal(await sync(id, file(range(0, 200)), state), id, range(0, 200));
    const head = file(range(0, 19));
    const env: Record<string, string | undefined> = { ...process.env, ...t.env, NO_COLOR: '1' };
    for (const k of ['CI', 'XCTL_NO_PROMPT', 'DBUS_SESSION_BUS_ADDRESS']) delete env[k];
    // Under a pseudo-terminal (`script`), asynchronously: the sandbox answers from this process.
    const pty = (extra: string, answer: string) =>
      new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
        const cmd = `${process.execPath} ${BIN} audiences sync ${id} ${head} --type email --state-dir ${state} ${extra}`;
        const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout }));
        child.stdin.end(answer);
      });
    const sent = await requests(id);
    let p = await pty('', 'n\n');
    expect(p.stdout).toMatch(/would remove 181 of the audience's 200 members \(90.5%\)/);
    expect(p.stdout).toMatch(/remove 181 members from audience .*\? \[y\/N\]/);
    expect(p.status).toBe(2);
    expect(await requests(id)).toBe(sent);
    // Without a terminal: refused, as in a pipeline.
    const r = await sync(id, head, state);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/more than --max-removes 10% \(20\) allows by default/);
    p = await pty('--yes', '');
    expect(p.status, p.stdout).toBe(0);
    expect(await members(id)).toEqual(digests(emails(range(0, 19))));
  }, 120_000);

  it('5. a header-only export never empties an audience without --allow-empty (sync and apply)', async () => {
    const id = audience();
    const state = runner();
    await equal(await sync(id, file(range(0, 500)), state), id, range(0, 500));
    const empty = writeLines(dir, `empty${++n}.csv`, ['email']);
    let r = await sync(id, empty, state, ['--max-removes', '100%']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has no data rows: a sync to it would remove all 500 members; nothing was sent/);
    expect(r.stderr).toContain('--allow-empty');
    expect(await members(id)).toHaveLength(500);
    const name = `Header only ${n}`;
    t.sb.app.state.collection('custom_audiences').get(id)!.name = name;
    const yaml = path.join(dir, `apply${n}.yaml`);
    fs.writeFileSync(
      yaml,
      `defaults:\n  type: email\naudiences:\n  - name: ${name}\n    source: ${empty}\n    max_removes: "100%"\n`,
    );
    for (const extra of [['--plan'], []]) {
      r = await t.run(xctl`audiences apply -f ${yaml} --state-dir ${state} ${extra}`, { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/has no data rows/);
    }
    expect(await members(id)).toHaveLength(500);
    r = await sync(id, empty, state, ['--max-removes', '100%', '--allow-empty']);
    await equal(r, id, []);
  }, 120_000);

  it('6. rejected rows holding back removals: exit 5 naming the rows, the audience left as it was', async () => {
    const id = audience();
    const state = runner();
    await equal(await sync(id, file(range(0, 400)), state), id, range(0, 400));
    const bad = ['not-an-email', 'also-bad', 'no-at-sign'];
    const r = await sync(id, file(range(30, 400), bad), state, ['--max-removes', '100%']);
    expect(r.code, r.stderr).toBe(5);
    expect(json(r)).toMatchObject({ status: 'diverged', kept_for_rejects: 30, removes: 0 });
    expect(r.stderr).toMatch(/30 members not in the file were kept because 3 rows were rejected \(line 372 /);
    expect(await members(id)).toEqual(digests(emails(range(0, 400))));
    await equal(await sync(id, file(range(30, 400)), state, ['--max-removes', '100%']), id, range(30, 400));
  }, 120_000);

  it("7. a pending mistaken sync meets today's guard; --abandon drops it and syncs the right file", async () => {
    const id = audience();
    const state = runner();
    await equal(await sync(id, file(range(0, 300)), state), id, range(0, 300));
    // The wrong file (92% removals), past the guard, stops part-way: its plan stays pending.
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 400, count: 1, match: '/users$' });
    const wrong = await sync(id, file(range(0, 24)), state, ['--max-removes', '100%', '--batch-size', '10']);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(wrong.code).not.toBe(0);
    const right = file(range(0, 310));
    const sent = await requests(id);
    let r = await sync(id, right, state);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/interrupted sync pending here \(276 removes, 0 adds\) would remove 276 of/);
    expect(r.stderr).toContain('--abandon');
    expect(await requests(id)).toBe(sent);
    r = await sync(id, right, state, ['--abandon']);
    await equal(r, id, range(0, 310));
  }, 120_000);

  it('8. plan gates agree: apply --plan with a refused audience exits 2, as sync --plan does', async () => {
    const id = audience();
    const state = runner();
    await equal(await sync(id, file(range(0, 100)), state), id, range(0, 100));
    const small = file(range(0, 50));
    let r = await sync(id, small, state, ['--plan']);
    expect(r.code).toBe(2);
    const name = `Gate ${n}`;
    t.sb.app.state.collection('custom_audiences').get(id)!.name = name;
    const yaml = path.join(dir, `apply${n}.yaml`);
    fs.writeFileSync(yaml, `defaults:\n  type: email\naudiences:\n  - name: ${name}\n    source: ${small}\n`);
    r = await t.run(xctl`audiences apply -f ${yaml} --state-dir ${state} --plan`, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/would be refused by apply/);
  }, 120_000);
});

// Random histories as a pipeline lives them: syncs from the latest cache, from a stale one or
// from none, states saved or lost, runs failing part-way, hands adding and removing members,
// rejected rows. After every step: exit 0 means the sandbox holds exactly the file's valid rows
// (digest for digest); any other exit names what diverged or stopped.
describe('issue 40: random histories', () => {
  const ids = fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 30 });
  const step = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('sync' as const),
        ids,
        bad: fc.boolean(),
        from: fc.constantFrom('latest', 'latest', 'latest', 'stale', 'fresh'),
        save: fc.constantFrom(true, true, true, false),
        flags: fc.constantFrom([], [], ['--adopt'], ['--rebuild'], ['--abandon']),
        // null: no fault; else one batch refused, its write made (true) or not (false).
        fail: fc.constantFrom(null, null, null, null, true, false),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('hand-add' as const, 'hand-remove' as const), ids }) },
  );
  const history = fc.array(step, { minLength: 5, maxLength: 10 });
  const codes: Record<string, number> = {};

  it('exit 0 implies the audience equals the file; otherwise the exit is non-zero and says why', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (steps) => {
        const id = audience();
        const caches: string[] = [];
        for (const s of steps) {
          if (s.kind !== 'sync') {
            if (s.ids.length)
              expect((await upload(id, s.ids, s.kind === 'hand-remove' ? ['--delete'] : [])).code).toBe(0);
            continue;
          }
          const from =
            s.from === 'fresh' || !caches.length
              ? undefined
              : s.from === 'stale'
                ? caches[Math.floor(caches.length / 2)]
                : caches[caches.length - 1];
          const state = from ? copyOf(from) : runner();
          // A run stopped part-way: the service refuses one batch (its write made or not).
          if (s.fail !== null)
            await t.admin('POST', '/_sandbox/faults', {
              error_rate: 1,
              status: 400,
              count: 1,
              match: '/users$',
              after: s.fail,
            });
          const f = file(s.ids, s.bad ? ['not-an-email'] : []);
          const r = await sync(id, f, state, ['--max-removes', '100%', '--batch-size', '5', ...s.flags]);
          if (s.fail !== null) await t.admin('DELETE', '/_sandbox/faults');
          if (s.save) caches.push(state);
          codes[String(r.code)] = (codes[String(r.code)] ?? 0) + 1;
          if (r.code === 0) {
            expect(await members(id), r.stderr).toEqual(digests(emails(s.ids)));
            expect(json(r)).toMatchObject({ audience_size: s.ids.length, snapshot_members: s.ids.length });
          } else {
            expect([1, 2, 4, 5], r.stderr).toContain(r.code);
            expect(r.stderr).toMatch(/audience|snapshot|rejected|members|refused|batch|error/);
          }
        }
      }),
      { numRuns: 8, endOnFailure: true },
    );
    // The histories reach the outcomes that matter (not all refused).
    expect(codes['0'], JSON.stringify(codes)).toBeGreaterThan(0);
  }, 600_000);
});

// `audiences inspect` is the pre-flight check: on the same corpus it refuses and passes what
// upload does, and `hash --explain` says the same of each row.
describe('issue 40: inspect, hash --explain and upload agree', () => {
  it('invalid UTF-8, a row of empty cells, malformed domains and a last row cut mid-value', async () => {
    const corpus = path.join(dir, `corpus${++n}.csv`);
    fs.writeFileSync(
      corpus,
      Buffer.concat([
        Buffer.from('email,name\nuser1@example.com,A\nmal'),
        Buffer.from([0xff]),
        Buffer.from('@example.com,B\n,,,\nuser@x,C\nuser@x..com,D\n"user3@example.com",E\nuser2166@exam'),
      ]),
    );
    const id = audience();
    const ins = await t.run(xctl`audiences inspect ${corpus} --column email=email -o json`);
    expect(ins.code, ins.stderr).toBe(0);
    const report = JSON.parse(ins.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      rows: 6,
      blank: 1,
      values: { email: { values: 6, valid: 2, rejected: 4 } },
      unterminated_last_line: 8,
    });
    const up = await t.run(xctl`audiences upload ${id} ${corpus} --column email=email -o json`);
    expect(up.code, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({
      read: 6,
      blank: 1,
      valid: 2,
      rejected: 4,
      unterminated_last_line: 8,
    });
    expect(up.stderr).toContain('line 8, the last, has no newline: the file may be cut short');
    expect(await members(id)).toEqual(digests(['user1@example.com', 'user3@example.com']));
    const ex = await t.run(xctl`audiences hash ${corpus} --column email=email --explain`);
    const rows = ex.stdout.trim().split('\n').slice(1);
    expect(rows.map((r) => r.split('\t')[0])).toEqual(['2', '3', '5', '6', '7', '8']); // line 4 (,,,) is blank
    expect(rows.filter((r) => r.includes('\trejected: '))).toHaveLength(4);
    expect(rows[1]).toMatch(/\trejected: not valid UTF-8$/);
  });

  it('a 0-byte file is a clear exit 2 for inspect, upload and sync', async () => {
    const empty = path.join(dir, `empty${++n}.csv`);
    fs.writeFileSync(empty, '');
    const id = audience();
    for (const args of [
      xctl`audiences inspect ${empty} --type email`,
      xctl`audiences upload ${id} ${empty} --type email`,
      xctl`audiences sync ${id} ${empty} --type email --state-dir ${runner()}`,
    ]) {
      const r = await t.run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/empty/);
      expect(r.stderr).not.toMatch(/internal|stack|at .*\.js:/);
    }
  });
});
