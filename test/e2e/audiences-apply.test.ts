// `xctl audiences apply` through the real CLI against the sandbox, whose audiences keep their
// exact members (GET /_sandbox/audience-members): three audiences on two accounts (one of them
// a do-not-reach list fed by a command) equal their files digest for digest; an edited source
// plans only its audience with the exact adds and removes; a SIGKILLed apply converges when run
// again; changes by hand are drift; --prune deletes only what apply created.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempDir, useTestSandbox } from '../helpers/cli.js';

const t = useTestSandbox();
let dir: string;
let owner: string;
let sister: string;

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const emails = (ids: number[], p = 'user') => ids.map((i) => `${p}${i}@example.com`);
const phones = (ids: number[]) => ids.map((i) => `1415555${String(i).padStart(4, '0')}`);
const digests = (values: string[]) => [...new Set(values.map(sha))].sort();

interface Members {
  size: number;
  requests: number;
  members: Record<string, string[]>;
}
const members = async (kind: string, id: string) =>
  (await t.admin<{ data: Members }>('GET', `/_sandbox/audience-members/${kind}/${id}`)).data;

interface Row {
  name: string;
  account: string;
  id: string | null;
  action: string;
  adds: number;
  removes: number;
  grants: string[];
  revokes: string[];
  drift: string[];
}
const plan = async (extra: string[] = []) => {
  const r = await t.run(
    ['audiences', 'apply', '-f', path.join(dir, 'audiences.yaml'), '--plan', '-o', 'json', ...extra],
    { timeoutMs: 60_000 },
  );
  return {
    code: r.code,
    stderr: r.stderr,
    rows: (JSON.parse(r.stdout) as { audiences: Row[] }).audiences,
  };
};
const apply = (extra: string[] = []) =>
  t.run(['audiences', 'apply', '-f', path.join(dir, 'audiences.yaml'), '-o', 'json', ...extra], {
    timeoutMs: 120_000,
  });
const write = (name: string, lines: string[]) => fs.writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
const yaml = (audiences: string) =>
  fs.writeFileSync(
    path.join(dir, 'audiences.yaml'),
    `defaults:\n  account: ${owner}\n  type: email\naudiences:\n${audiences}`,
  );

// Its list is replaced on purpose below (kill -9): more removals than the 10% apply allows
// without a terminal, so the file turns the guard off for it.
const NEWSLETTER = `  - name: Newsletter
    source: news.csv
    columns: {email: "E-mail Address"}
    share_with: [SISTER]
    max_removes: 100%
`;
const LAPSED = `  - name: Lapsed buyers
    account: SISTER
    type: phone_number
    source: lapsed.txt
    default_country: US
`;
const DNR = `  - name: Do not contact
    kind: do_not_reach
    command: "sort -u dnr.txt"
`;
const all = () => (NEWSLETTER + LAPSED + DNR).replaceAll('SISTER', sister);

let ids: Record<string, string> = {};

beforeAll(() => {
  dir = tempDir('xctl-apply-');
  t.dirs.push(dir);
  owner = t.sb.seed.account_id;
  sister = [...t.sb.app.state.collection('accounts').values()].find((a) => a.name === 'Sandbox Sister Account')!.id;
  write('news.csv', [
    'Name,E-mail Address',
    ...emails(range(0, 3000)).map((e, i) => `N${i},${i % 7 ? e : ` ${e.toUpperCase()} `}`),
  ]);
  write(
    'lapsed.txt',
    phones(range(0, 500)).map((p, i) => (i % 2 ? `+${p}` : `(415) 555-${p.slice(-4)}`)),
  );
  write('dnr.txt', [...emails(range(0, 200), 'dnr'), ...emails(range(0, 50), 'dnr')]);
  yaml(all());
});

describe('audiences apply', () => {
  it('three audiences on two accounts: plan exit 10, apply creates and fills them exactly, then plan exit 0', async () => {
    let p = await plan();
    expect(p.code, p.stderr).toBe(10);
    expect(p.rows).toEqual([
      {
        name: 'Newsletter',
        account: owner,
        id: null,
        action: 'create',
        adds: 3000,
        removes: 0,
        grants: [sister],
        revokes: [],
        drift: [],
      },
      {
        name: 'Lapsed buyers',
        account: sister,
        id: null,
        action: 'create',
        adds: 500,
        removes: 0,
        grants: [],
        revokes: [],
        drift: [],
      },
      {
        name: 'Do not contact',
        account: owner,
        id: null,
        action: 'create',
        adds: 200,
        removes: 0,
        grants: [],
        revokes: [],
        drift: [],
        kind: 'do_not_reach',
      },
    ]);
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      audiences: Array<Row & { status: string; acknowledged: number }>;
      total: Record<string, number>;
    };
    expect(out.audiences.map((a) => [a.name, a.status, a.adds, a.acknowledged, a.grants])).toEqual([
      ['Newsletter', 'ok', 3000, 3000, 1],
      ['Lapsed buyers', 'ok', 500, 500, 0],
      ['Do not contact', 'ok', 200, 200, 0],
    ]);
    expect(out.total).toMatchObject({ audiences: 3, ok: 3, failed: 0, adds: 3700, removes: 0 });
    expect(r.stderr).toContain('total: 3 of 3 audiences equal their sources');
    ids = Object.fromEntries(out.audiences.map((a) => [a.name, a.id!]));
    const cas = t.sb.app.state.collection('custom_audiences');
    expect(cas.get(ids.Newsletter!)).toMatchObject({ name: 'Newsletter', account_id: owner });
    expect(cas.get(ids['Lapsed buyers']!)).toMatchObject({
      name: 'Lapsed buyers',
      account_id: sister,
    });
    expect(t.sb.app.state.collection('do_not_reach_lists').get(ids['Do not contact']!)).toMatchObject({
      account_id: owner,
      description: 'Do not contact',
    });
    expect((await members('custom_audiences', ids.Newsletter!)).members).toEqual({
      email: digests(emails(range(0, 3000))),
    });
    expect((await members('custom_audiences', ids['Lapsed buyers']!)).members).toEqual({
      phone_number: digests(phones(range(0, 500))),
    });
    expect((await members('do_not_reach_lists', ids['Do not contact']!)).members).toEqual({
      email: digests(emails(range(0, 200), 'dnr')),
    });
    const grants = [...t.sb.app.state.collection('custom_audience_permissions').values()].filter(
      (g) => g.custom_audience_id === ids.Newsletter && !g.deleted,
    );
    expect(grants.map((g) => [g.granted_account_id, g.permission_level])).toEqual([[sister, 'READ_ONLY']]);

    p = await plan();
    expect(p.code, p.stderr).toBe(0);
    expect(p.rows.map((x) => [x.name, x.id, x.action, x.adds, x.removes, x.drift])).toEqual([
      ['Newsletter', ids.Newsletter, 'none', 0, 0, []],
      ['Lapsed buyers', ids['Lapsed buyers'], 'none', 0, 0, []],
      ['Do not contact', ids['Do not contact'], 'none', 0, 0, []],
    ]);
  }, 120_000);

  it('an edited source plans only its audience, with its exact adds and removes; apply makes it equal', async () => {
    write('lapsed.txt', phones([...range(40, 500), ...range(900, 925)]));
    const p = await plan();
    expect(p.code).toBe(10);
    expect(p.rows.map((x) => [x.name, x.action, x.adds, x.removes])).toEqual([
      ['Newsletter', 'none', 0, 0],
      ['Lapsed buyers', 'update', 25, 40],
      ['Do not contact', 'none', 0, 0],
    ]);
    const before = await members('custom_audiences', ids.Newsletter!);
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect((await members('custom_audiences', ids['Lapsed buyers']!)).members).toEqual({
      phone_number: digests(phones([...range(40, 500), ...range(900, 925)])),
    });
    expect((await members('custom_audiences', ids.Newsletter!)).requests).toBe(before.requests); // nothing sent to the others
    expect((await plan()).code).toBe(0);
  }, 120_000);

  it('--only limits plan and apply to the named audiences; a name the file lacks exits 2', async () => {
    write('dnr.txt', emails(range(0, 210), 'dnr'));
    const p = await plan(['--only', 'Newsletter']);
    expect(p.code).toBe(0);
    expect(p.rows.map((x) => x.name)).toEqual(['Newsletter']);
    const bad = await t.run(['audiences', 'apply', '-f', path.join(dir, 'audiences.yaml'), '--only', 'Newsleter']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--only: ${path.join(dir, 'audiences.yaml')} lists no audience named "Newsleter"`);
    expect((await plan(['--only', 'Do not contact'])).rows).toMatchObject([
      { name: 'Do not contact', action: 'update', adds: 10, removes: 0 },
    ]);
    expect((await apply(['--only', 'Do not contact'])).code).toBe(0);
    expect((await members('do_not_reach_lists', ids['Do not contact']!)).members.email).toEqual(
      digests(emails(range(0, 210), 'dnr')),
    );
  }, 120_000);

  it('a grant revoked by hand and a rename by hand are drift in the next plan; apply puts them back', async () => {
    const [g] = [...t.sb.app.state.collection('custom_audience_permissions').values()].filter(
      (x) => x.custom_audience_id === ids.Newsletter && !x.deleted,
    );
    expect((await t.run(['audiences', 'permissions', 'revoke', ids.Newsletter!, g!.id, '--yes'])).code).toBe(0);
    expect(
      (await t.run(['audiences', 'update', ids['Lapsed buyers']!, '--name', 'Lapsed (old)', '--account', sister])).code,
    ).toBe(0);
    const p = await plan();
    expect(p.code).toBe(10);
    expect(p.rows.map((x) => [x.name, x.action, x.grants, x.drift])).toEqual([
      ['Newsletter', 'update', [sister], [`grant to ${sister} revoked by hand`]],
      ['Lapsed buyers', 'update', [], ['renamed by hand to "Lapsed (old)"']],
      ['Do not contact', 'none', [], []],
    ]);
    expect((await apply()).code).toBe(0);
    expect(t.sb.app.state.collection('custom_audiences').get(ids['Lapsed buyers']!)!.name).toBe('Lapsed buyers');
    expect((await plan()).code).toBe(0);
  }, 120_000);

  it('kill -9 in the middle of apply, then apply again: converges, no record lost', async () => {
    const next = [...range(1000, 3000), ...range(10_000, 40_000)];
    write('news.csv', ['E-mail Address', ...emails(next)]);
    const journal = path.join(
      t.configDir,
      'audiences',
      'default',
      owner,
      `${ids.Newsletter}.email.pending`,
      'journal.jsonl',
    );
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 15, match: '/users$' });
    const args = [
      'audiences',
      'apply',
      '-f',
      path.join(dir, 'audiences.yaml'),
      '--batch-size',
      '250',
      '--concurrency',
      '2',
    ];
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...t.env },
      stdio: 'ignore',
    });
    for (let i = 0; i < 2400; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').split('\n').length > 30) break;
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    await t.admin('DELETE', '/_sandbox/faults');
    const mid = await members('custom_audiences', ids.Newsletter!);
    expect(mid.members.email).not.toEqual(digests(emails(next))); // really stopped half-way

    const p = await plan();
    expect(p.code).toBe(10);
    expect(p.stderr).toContain('an interrupted sync is pending (1000 removes, 30000 adds)');
    const r = await apply(['--batch-size', '250']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Newsletter (' + owner + '): finishing an interrupted sync first (1000 removes, 30000 adds)',
    );
    expect((await members('custom_audiences', ids.Newsletter!)).members).toEqual({
      email: digests(emails(next)),
    });
    expect((await plan()).code).toBe(0);
  }, 240_000);

  it('Ctrl-C drains, exits 130 and names what is unfinished; the next apply finishes it', async () => {
    const next = range(5000, 30_000);
    write('news.csv', ['E-mail Address', ...emails(next)]);
    const journal = path.join(
      t.configDir,
      'audiences',
      'default',
      owner,
      `${ids.Newsletter}.email.pending`,
      'journal.jsonl',
    );
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 15, match: '/users$' });
    const args = [
      'audiences',
      'apply',
      '-f',
      path.join(dir, 'audiences.yaml'),
      '--batch-size',
      '250',
      '--concurrency',
      '2',
    ];
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...t.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    for (
      let i = 0;
      i < 2400 && !(fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').split('\n').length > 10);
      i++
    )
      await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('close', r));
    await t.admin('DELETE', '/_sandbox/faults');
    expect(code, stderr).toBe(130);
    expect(stdout).toMatch(/^Newsletter\t[^\n]*\tupdate\tfailed\t/m);
    expect(stdout).toMatch(/^Do not contact\t[^\n]*\tskipped\t[^\n]*\tinterrupted$/m);
    expect(stderr).toMatch(/interrupted: 2 audiences unfinished; run the same apply again to finish them/); // one stopped, one not started
    expect(stderr).not.toMatch(/at .*\.js:\d+/);
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('finishing an interrupted sync first');
    expect((await members('custom_audiences', ids.Newsletter!)).members).toEqual({
      email: digests(emails(next)),
    });
  }, 240_000);

  it('--prune deletes only audiences an earlier apply created and the file no longer lists', async () => {
    const manual = JSON.parse(
      (await t.run(['audiences', 'create', '--name', 'Made by hand', '-o', 'json'])).stdout,
    ) as { id: string };
    yaml(NEWSLETTER.replaceAll('SISTER', sister) + DNR); // Lapsed buyers (on the sister account) is gone
    // The sister account is no longer named by the file: nothing of it is pruned.
    let p = await plan(['--prune']);
    expect(p.code).toBe(0);
    yaml(
      NEWSLETTER.replaceAll('SISTER', sister) + `  - name: Sister list\n    account: ${sister}\n    source: dnr.txt\n`,
    );
    p = await plan(['--prune']);
    expect(p.code).toBe(10);
    expect(p.rows.map((x) => [x.name, x.account, x.action])).toEqual([
      ['Newsletter', owner, 'none'],
      ['Sister list', sister, 'create'],
      ['Do not contact', owner, 'delete'],
      ['Lapsed buyers', sister, 'delete'],
    ]);
    const r = await apply(['--prune']);
    expect(r.code, r.stderr).toBe(0);
    const cas = t.sb.app.state.collection('custom_audiences');
    expect(cas.get(ids['Lapsed buyers']!)!.deleted).toBe(true);
    expect(t.sb.app.state.collection('do_not_reach_lists').get(ids['Do not contact']!)!.deleted).toBe(true);
    expect(cas.get(manual.id)!.deleted).toBe(false); // not apply's: never pruned
    expect(cas.get(ids.Newsletter!)!.deleted).toBe(false);
    expect((await plan(['--prune'])).code).toBe(0);
  }, 120_000);

  it('killed between a create and its record: the next apply knows the audience as its own (so --prune may delete it)', async () => {
    // What a kill right after the create leaves: the intent recorded, the audience on the service.
    const state = path.join(t.configDir, 'audiences', 'default', owner, 'apply-state.json');
    const s = JSON.parse(fs.readFileSync(state, 'utf8')) as {
      creating: Array<{ kind: string; name: string }>;
    };
    s.creating.push({ kind: 'custom_audience', name: 'Orphan' });
    fs.writeFileSync(state, JSON.stringify(s));
    const made = JSON.parse((await t.run(['audiences', 'create', '--name', 'Orphan', '-o', 'json'])).stdout) as {
      id: string;
    };
    yaml(NEWSLETTER.replaceAll('SISTER', sister) + '  - {name: Orphan, source: dnr.txt}\n');
    expect((await plan()).rows[1]).toMatchObject({
      name: 'Orphan',
      id: made.id,
      action: 'update',
      adds: 210,
    });
    expect((await apply()).code).toBe(0);
    expect((await members('custom_audiences', made.id)).members.email).toEqual(digests(emails(range(0, 210), 'dnr')));
    yaml(NEWSLETTER.replaceAll('SISTER', sister));
    const p = await plan(['--prune']);
    expect(p.rows.map((x) => [x.name, x.id, x.action])).toEqual([
      ['Newsletter', ids.Newsletter, 'none'],
      ['Orphan', made.id, 'delete'],
    ]);
    expect((await apply(['--prune'])).code).toBe(0);
    expect(t.sb.app.state.collection('custom_audiences').get(made.id)!.deleted).toBe(true);
  }, 120_000);

  it('a command source that fails or runs past its timeout stops only its audience; nothing of its output is used', async () => {
    yaml(
      `  - name: Broken\n    command: "echo a@example.com; exit 3"\n  - name: Slow\n    command: "sleep 30"\n    timeout: 1\n`,
    );
    const r = await apply();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Broken (' + owner + '): audience "Broken": its command exited with code 3; its output is not used',
    );
    expect(r.stderr).toContain('audience "Slow": its command ran longer than its timeout (1 s)');
    expect(
      [...t.sb.app.state.collection('custom_audiences').values()].filter(
        (a) => a.name === 'Broken' || a.name === 'Slow',
      ),
    ).toEqual([]);
  }, 60_000);

  it('errors in the file name their line; --schema prints the JSON Schema', async () => {
    fs.writeFileSync(
      path.join(dir, 'bad.yaml'),
      'audiences:\n  - name: A\n    source: a.csv\n    type: emial\n  - name: B\n    sauce: b.csv\n',
    );
    const r = await t.run(['audiences', 'apply', '-f', path.join(dir, 'bad.yaml'), '--plan']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:4: audiences\[0\]\.type: Invalid option/);
    expect(r.stderr).toContain('bad.yaml:6: audiences[1]: Unrecognized key: "sauce"');
    const s = await t.run(['audiences', 'apply', '--schema']);
    expect(s.code).toBe(0);
    const schema = JSON.parse(s.stdout) as { $schema: string; required: string[] };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(['audiences']);
  });
});
