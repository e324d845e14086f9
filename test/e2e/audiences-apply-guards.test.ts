// `audiences apply` guards removals as `audiences sync` does (issue 33): run unattended (no TTY,
// as CI runs it), a command source whose producer stopped half-way (20 of an audience's 50
// members, exit 0) is refused before anything is sent - its row says `refused`, the run exits 2
// although the other audience of the file was applied, and the audience keeps its 50 members
// digest for digest. `--max-removes 100%` lets the same removal through. (On the main of before
// this change, the apply removed 30 members and exited 0.)
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const t = useTestSandbox();
let dir: string;

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const emails = (from: number, to: number, p = 'member') =>
  Array.from({ length: to - from }, (_, k) => `${p}${from + k}@example.com`);
const digests = (values: string[]) => [...new Set(values.map(sha))].sort();
const write = (name: string, lines: string[]) => fs.writeFileSync(path.join(dir, name), lines.join('\n') + '\n');

interface Members {
  size: number;
  requests: number;
  members: Record<string, string[]>;
}
const members = async (id: string) =>
  (await t.admin<{ data: Members }>('GET', `/_sandbox/audience-members/custom_audiences/${id}`)).data;

/** The file: "Members" read from a command (its producer), "Other" from a file. */
const yaml = (producer: string) =>
  fs.writeFileSync(
    path.join(dir, 'audiences.yaml'),
    `defaults:\n  account: ${t.sb.seed.account_id}\n  type: email\naudiences:\n` +
      `  - name: Members\n    command: "${producer}"\n  - name: Other\n    source: other.txt\n`,
  );
const apply = (extra: string[] = []) =>
  t.run(['audiences', 'apply', '-f', path.join(dir, 'audiences.yaml'), '-o', 'json', ...extra], {
    timeoutMs: 60_000,
  });

interface Result {
  name: string;
  id: string;
  status: string;
  adds: number;
  removes: number;
  error?: string;
}

beforeAll(() => {
  dir = tempDir('xctl-apply-guards-');
  t.dirs.push(dir);
  write('all.txt', emails(0, 50));
  write('other.txt', emails(0, 10, 'other'));
});

describe('audiences apply, unattended: removals are guarded as sync guards them', () => {
  it('a truncated command source is refused (exit 2, nothing sent for it, others applied); --max-removes 100% applies it', async () => {
    yaml('cat all.txt');
    let r = await apply();
    expect(r.code, r.stderr).toBe(0);
    const ids = Object.fromEntries(
      (JSON.parse(r.stdout) as { audiences: Result[] }).audiences.map((a) => [a.name, a.id]),
    );
    const full = await members(ids.Members!);
    expect(full.members).toEqual({ email: digests(emails(0, 50)) });

    // The producer dies after 20 rows; the other audience has 5 new members.
    yaml('head -n 20 all.txt');
    write('other.txt', emails(0, 15, 'other'));
    const plan = await t.run(['audiences', 'apply', '-f', path.join(dir, 'audiences.yaml'), '--plan', '-o', 'json'], {
      timeoutMs: 60_000,
    });
    expect(plan.code, plan.stderr).toBe(10);
    const refusal =
      '30 of its 50 members would be removed (60%), more than 10% (5) allows by default when no terminal is attached; nothing is sent for it: check its source (a truncated export looks like this), or if the removals are meant pass --max-removes 30 (100% turns the guard off) or raise its max_removes';
    expect((JSON.parse(plan.stdout) as { audiences: unknown[] }).audiences).toEqual([
      expect.objectContaining({ name: 'Members', action: 'refused', adds: 0, removes: 30, refused: refusal }),
      expect.objectContaining({ name: 'Other', action: 'update', adds: 5, removes: 0 }),
    ]);

    r = await apply();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Members (${t.sb.seed.account_id}): refused: ${refusal}`);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({
      error: { message: '1 of 2 audiences refused, nothing was sent for them: "Members"; 1 applied', exit_code: 2 },
    });
    const out = JSON.parse(r.stdout) as { audiences: Result[]; total: Record<string, number> };
    expect(out.audiences.map((a) => [a.name, a.status, a.adds, a.removes])).toEqual([
      ['Members', 'refused', 0, 0],
      ['Other', 'ok', 5, 0],
    ]);
    const after = await members(ids.Members!);
    expect(after.members).toEqual(full.members); // digest for digest
    expect(after.requests).toBe(full.requests); // nothing sent to it
    expect((await members(ids.Other!)).members).toEqual({ email: digests(emails(0, 15, 'other')) });

    // The removal is meant: --max-removes 100% turns the guard off.
    r = await apply(['--max-removes', '100%']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { audiences: Result[] }).audiences[0]).toMatchObject({
      name: 'Members',
      status: 'ok',
      removes: 30,
    });
    expect((await members(ids.Members!)).members).toEqual({ email: digests(emails(0, 20)) });
  }, 120_000);
});
