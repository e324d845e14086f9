// `audiences apply` in-process: the file (defaults, paths, errors naming their line, the JSON
// Schema), the plan against stubbed ads answers (matching by name, drift by hand, grants,
// snapshot age), its exact output and exit, and the state file's intent records.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// First: the plan hashes sources in worker threads, which load the built hash-worker.js.
import '../helpers/hash-worker.js';
import { loadApplyFile, applyJsonSchema } from '../../src/audiences/apply/schema.js';
import { readState, statePath, updateState } from '../../src/audiences/apply/state.js';
import { sourceFile } from '../../src/audiences/apply/source.js';
import type { AudienceSpec } from '../../src/audiences/apply/schema.js';
import { XctlError } from '../../src/core/errors.js';
import { audiencesApply, type ApplyOptions } from '../../src/commands/audiences/apply.js';
import { MemoryCursor } from '../../src/audiences/digests.js';
import { snapshotPaths, writeSnapshot } from '../../src/audiences/snapshot.js';
import { PlanHasChanges, UsageError } from '../../src/core/errors.js';
import { HttpRegistry, json, json as answer, route } from '../helpers/http-registry.js';
import { testContext, type TestContext, type TestContextOptions } from '../helpers/test-context.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(
  yamlText: string,
  files: Record<string, string> = {},
  transport?: HttpRegistry,
  more: Partial<TestContextOptions> = {},
): { t: TestContext; file: string; dir: string } {
  const t = testContext({ transport, ...more });
  cleanups.push(() => t.cleanup());
  const dir = path.join(t.configDir, 'repo');
  fs.mkdirSync(dir);
  const file = path.join(dir, 'audiences.yaml');
  fs.writeFileSync(file, yamlText);
  for (const [n, c] of Object.entries(files)) fs.writeFileSync(path.join(dir, n), c);
  return { t, file, dir };
}

const opts = (file: string, o: Partial<ApplyOptions> = {}): ApplyOptions => ({
  file,
  batchSize: '2500',
  concurrency: '4',
  ...o,
});
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const emails = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@example.com`);

async function usage(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(UsageError);
  return (e as Error).message;
}

describe('the audiences file', () => {
  it('resolves defaults, the fallback account and paths relative to the file', async () => {
    const { file, dir } = setup(`defaults:
  type: email
  share_with: [acct9]
  max_removes: 100
audiences:
  - name: Newsletter
    source: data/news.csv
  - name: Phones
    account: acct2
    columns: {phone_number: Mobile}
    default_country: us
    share_with: [{account: acct1, level: READ_WRITE}]
    command: ./export.sh
    timeout: 5
  - name: DNR
    kind: do_not_reach
    source: dnr.txt
`);
    let asked = 0;
    const specs = await loadApplyFile(file, async () => (asked++, 'acct1'));
    expect(asked).toBe(1);
    expect(specs.map(({ line: _l, ...s }) => s)).toEqual([
      {
        name: 'Newsletter',
        kind: 'custom_audience',
        account: 'acct1',
        description: undefined,
        source: { file: path.join(dir, 'data/news.csv') },
        type: 'email',
        columns: [],
        format: 'auto',
        hashed: false,
        defaultCountry: undefined,
        shareWith: [{ account: 'acct9', level: 'READ_ONLY' }],
        adopt: false,
        maxRemoves: '100',
        maxRejectRate: undefined,
      },
      {
        name: 'Phones',
        kind: 'custom_audience',
        account: 'acct2',
        description: undefined,
        source: { command: './export.sh', timeoutMs: 5000, cwd: dir },
        type: undefined,
        columns: [{ type: 'phone_number', header: 'Mobile' }],
        format: 'auto',
        hashed: false,
        defaultCountry: 'US',
        shareWith: [{ account: 'acct1', level: 'READ_WRITE' }],
        adopt: false,
        maxRemoves: '100',
        maxRejectRate: undefined,
      },
      {
        name: 'DNR',
        kind: 'do_not_reach',
        account: 'acct1',
        description: undefined,
        source: { file: path.join(dir, 'dnr.txt') },
        type: 'email',
        columns: [],
        format: 'auto',
        hashed: false,
        defaultCountry: undefined,
        shareWith: [],
        adopt: false,
        maxRemoves: '100',
        maxRejectRate: undefined,
      },
    ]);
    expect(specs.map((s) => s.line)).toEqual([6, 8, 15]);
  });

  it('asks for no fallback account when every audience names one', async () => {
    const { file } = setup('defaults: {account: acct7, type: email}\naudiences:\n  - {name: A, source: a.csv}\n');
    const specs = await loadApplyFile(file, async () => {
      throw new Error('not asked');
    });
    expect(specs[0]!.account).toBe('acct7');
  });

  it.each([
    [
      'audiences:\n  - name: A\n    source: a\n    type: emial\n',
      'audiences.yaml:4: audiences[0].type: Invalid option: expected one of "email"|"phone_number"|"handle"|"twitter_id"|"device_id" (did you mean email?)',
    ],
    [
      'audiences:\n  - name: A\n    source: a\n    type: email\n    sauce: b\n',
      'audiences.yaml:5: audiences[0]: Unrecognized key: "sauce" (did you mean source?)',
    ],
    [
      // issue 46: a mistyped key names the one meant
      'audiences:\n  - name: A\n    sorce: a\n    type: email\n',
      'audiences.yaml:3: audiences[0]: Unrecognized key: "sorce" (did you mean source?)',
    ],
    [
      'audiences:\n  - name: A\n    type: email\n',
      'audiences.yaml:2: audiences[0]: give exactly one of source and command',
    ],
    [
      'audiences:\n  - name: A\n    source: a\n    type: email\n    columns: {email: E}\n',
      'audiences.yaml:2: audiences[0]: type and columns are exclusive (as --type and --column)',
    ],
    [
      'audiences:\n  - name: A\n    source: a\n    columns: {email: E, phone_number: P}\n',
      'audiences.yaml:4: audiences[0].columns: must name exactly one column: an audience keeps members of one identifier type',
    ],
    [
      'audiences:\n  - {name: A, source: a, type: email, kind: do_not_reach, share_with: [b1]}\n',
      'audiences.yaml:2: audiences[0].share_with: a do-not-reach list cannot be shared',
    ],
    [
      'audiences:\n  - {name: A, source: a, type: email, share_with: [acct1]}\n',
      'audiences.yaml:2: audience "A" cannot be shared with its own account acct1',
    ],
    [
      'audiences:\n  - {name: A, source: a, type: email}\n  - {name: A, source: b, type: email}\n',
      'audiences.yaml:3: account acct1 has audience "A" again (line 2)',
    ],
    [
      'audiences:\n  - {name: A, source: a, type: email, kind: do_not_reach}\n  - {name: B, source: b, type: email, kind: do_not_reach}\n',
      'audiences.yaml:3: account acct1 has a second do-not-reach list (an account has at most one)',
    ],
    [
      'audiences:\n  - {name: A, source: a, type: handle, kind: do_not_reach}\n',
      'audiences.yaml:2: do-not-reach "A": a do-not-reach list takes email or phone_number',
    ],
    [
      'audiences:\n  - {name: A, source: a}\n',
      'audiences.yaml:2: audience "A": give type or columns (here or in defaults)',
    ],
    [
      "audiences:\n  - {name: A, source: a, type: email, max_removes: '150%'}\n",
      'audiences.yaml:2: audiences[0].max_removes: must be a number of members or a percentage up to 100%',
    ],
    ['audiences:\n  - name: A\n    source: [a\n', 'audiences.yaml:4: '],
    ['audiences: []\n', 'audiences.yaml:1: audiences: Too small: expected array to have >=1 items'],
  ])('%j -> %s', async (text, message) => {
    const { file } = setup(text);
    expect(await usage(loadApplyFile(file, async () => 'acct1'))).toContain(message);
  });

  it('publishes its JSON Schema (draft 2020-12), the same the validator uses', () => {
    const s = applyJsonSchema() as {
      $schema: string;
      required: string[];
      properties: Record<string, { items?: { required?: string[]; properties?: Record<string, { enum?: string[] }> } }>;
    };
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(s.required).toEqual(['audiences']);
    expect(s.properties.audiences!.items!.required).toEqual(['name']);
    expect(s.properties.audiences!.items!.properties!.kind!.enum).toEqual(['custom_audience', 'do_not_reach']);
  });
});

describe('apply --plan', () => {
  // Every sync reads the audience's size (issue 33: a first sync; issue 40: before the snapshot
  // is trusted): the members of its snapshot here (`snapshot` below), else empty.
  const sizes = new Map<string, number>();
  const sizeStub = (reg: HttpRegistry) =>
    reg.register(
      route('GET', /\/12\/accounts\/acct1\/custom_audiences\/\w+$/),
      (req) => json({ data: { audience_size: sizes.get(req.path.split('/').pop()!) ?? 0 } })(req),
      { times: 20 },
    );
  const stubs = (reg: HttpRegistry, audiences: unknown[], grants: unknown[] = []) => {
    reg.register(route('GET', '/12/accounts/acct1/custom_audiences'), json({ data: audiences, next_cursor: null }));
    if (grants)
      reg.register(
        route('GET', /\/12\/accounts\/acct1\/custom_audiences\/\w+\/permissions$/),
        json({ data: grants, next_cursor: null }),
      );
  };
  const yaml =
    'defaults: {type: email}\naudiences:\n  - name: Newsletter\n    source: news.txt\n    share_with: [acct2]\n';
  const source = { 'news.txt': emails(5).join('\n') + '\n' };

  async function snapshot(t: TestContext, id: string, values: string[], oldest: string): Promise<void> {
    const hex = [...new Set(values.map(sha))].sort();
    sizes.set(id, hex.length);
    const buf = Buffer.concat(hex.map((h) => Buffer.from(h, 'hex')));
    const file = snapshotPaths(t.configDir, 'default', 'acct1', id, 'email').snapshot;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await writeSnapshot(file, new MemoryCursor(buf, hex.length), {
      profile: 'default',
      account: 'acct1',
      audience: id,
      type: 'email',
      oldest_sent_at: oldest,
    });
  }

  it('in sync: one row "none", exit 0, piped as tsv', async () => {
    const reg = new HttpRegistry();
    sizeStub(reg);
    stubs(
      reg,
      [{ id: 'aud1', name: 'Newsletter', deleted: false }],
      [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
    );
    const { t, file } = setup(yaml, source, reg);
    await snapshot(t, 'aud1', emails(5), '2025-11-01T00:00:00.000Z');
    await audiencesApply(t.ctx, opts(file, { plan: true }));
    expect(t.stdout()).toBe('Newsletter\tacct1\taud1\tnone\t0\t0\t\t\t\n');
    expect(t.stderr()).toBe('plan: 0 of 1 audiences would change\n');
    reg.verify();
  });

  it('--state-dir (or XCTL_STATE_DIR) holds the snapshots and the state instead of the config folder', async () => {
    const reg = new HttpRegistry();
    sizeStub(reg);
    stubs(
      reg,
      [{ id: 'aud1', name: 'Newsletter', deleted: false }],
      [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
    );
    const { t, file, dir } = setup(yaml, source, reg);
    const stateDir = path.join(dir, 'state');
    await snapshot({ ...t, configDir: stateDir }, 'aud1', emails(5), '2025-11-01T00:00:00.000Z');
    await audiencesApply(t.ctx, opts(file, { plan: true, stateDir }));
    expect(t.stdout()).toBe('Newsletter\tacct1\taud1\tnone\t0\t0\t\t\t\n');
    const e = testContext({
      transport: reg,
      env: { XCTL_STATE_DIR: stateDir, XCTL_CONFIG_DIR: t.configDir },
    });
    cleanups.push(() => e.cleanup());
    stubs(
      reg,
      [{ id: 'aud1', name: 'Newsletter', deleted: false }],
      [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
    );
    await audiencesApply(e.ctx, opts(file, { plan: true }));
    expect(e.stdout()).toBe(t.stdout());
    // Without it, the config folder has no snapshot: every member would be sent (to an empty audience).
    sizes.set('aud1', 0);
    stubs(
      reg,
      [{ id: 'aud1', name: 'Newsletter', deleted: false }],
      [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
    );
    await expect(audiencesApply(t.ctx, opts(file, { plan: true }))).rejects.toBeInstanceOf(PlanHasChanges);
    expect(t.stdout()).toContain('snapshot missing');
  });

  it('drift: a grant revoked and one made by hand, a snapshot past 13 months (all members sent again); exit 10', async () => {
    const reg = new HttpRegistry();
    sizeStub(reg);
    stubs(
      reg,
      [{ id: 'aud1', name: 'Newsletter', deleted: false }],
      [{ id: 'p9', granted_account_id: 'acct3', permission_level: 'READ_ONLY', deleted: false }],
    );
    const { t, file } = setup(yaml, source, reg);
    await snapshot(t, 'aud1', emails(6), '2024-11-01T00:00:00.000Z'); // TEST_NOW is 2026-01-15
    updateState(statePath(t.configDir, 'default', 'acct1'), (s) =>
      s.audiences.push({
        id: 'aud1',
        kind: 'custom_audience',
        name: 'Newsletter',
        created: true,
        grants: { acct2: { permission_id: 'p1', level: 'READ_ONLY' } },
      }),
    );
    // 1 of 6 members leaves: more than the 10% allowed without a terminal, which is not the point here.
    const e = await audiencesApply(t.ctx, opts(file, { plan: true, maxRemoves: '100%' })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PlanHasChanges);
    expect(t.stdout()).toBe(
      'Newsletter\tacct1\taud1\tupdate\t5\t1\tacct2\tacct3\tgrant to acct2 revoked by hand; grant to acct3 made by hand; snapshot older than 13 months: every member is sent again\n',
    );
  });

  it('-o json: an audience deleted by hand is drift and planned for creation; one renamed by hand is renamed back', async () => {
    const reg = new HttpRegistry();
    sizeStub(reg);
    stubs(
      reg,
      [
        { id: 'gone1', name: 'Newsletter', deleted: true },
        { id: 'aud2', name: 'Renamed', deleted: false },
      ],
      null as never,
    );
    reg.register(
      route('GET', '/12/accounts/acct1/custom_audiences/aud2/permissions'),
      json({ data: [], next_cursor: null }),
    );
    const { t, file } = setup(
      yaml.replace(' share_with: [acct2]', ' type: email') + '  - {name: Lapsed, source: news.txt}\n',
      source,
      reg,
    );
    updateState(statePath(t.configDir, 'default', 'acct1'), (s) => {
      s.audiences.push({
        id: 'gone1',
        kind: 'custom_audience',
        name: 'Newsletter',
        created: true,
        grants: {},
      });
      s.audiences.push({
        id: 'aud2',
        kind: 'custom_audience',
        name: 'Lapsed',
        created: false,
        grants: {},
      });
    });
    const j = testContext({
      transport: reg,
      globals: { output: 'json' },
      env: { XCTL_CONFIG_DIR: t.configDir },
    });
    cleanups.push(() => j.cleanup());
    const e = await audiencesApply(j.ctx, opts(file, { plan: true })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PlanHasChanges);
    expect(JSON.parse(j.stdout())).toEqual({
      audiences: [
        {
          name: 'Newsletter',
          account: 'acct1',
          id: null,
          action: 'create',
          adds: 5,
          removes: 0,
          grants: [],
          revokes: [],
          drift: ['gone1 deleted by hand'],
        },
        {
          name: 'Lapsed',
          account: 'acct1',
          id: 'aud2',
          action: 'update',
          adds: 5,
          removes: 0,
          grants: [],
          revokes: [],
          drift: ['renamed by hand to "Renamed"', 'snapshot missing: every member is sent'],
        },
      ],
    });
    reg.verify();
  });

  it('names match whatever their case (the service keeps them unique so): the audience is renamed, not created', async () => {
    const reg = new HttpRegistry();
    sizeStub(reg);
    stubs(
      reg,
      [{ id: 'aud1', name: 'NEWSLETTER', deleted: false }],
      [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
    );
    const { t, file } = setup(yaml, source, reg);
    await snapshot(t, 'aud1', emails(5), '2025-11-01T00:00:00.000Z');
    await expect(audiencesApply(t.ctx, opts(file, { plan: true }))).rejects.toBeInstanceOf(PlanHasChanges);
    expect(t.stdout()).toBe('Newsletter\tacct1\taud1\tupdate\t0\t0\t\t\t\n');
  });

  it('an account that cannot be read fails its audiences only; the plan still shows the others, and exits with that error', async () => {
    const reg = new HttpRegistry();
    sizeStub(reg);
    stubs(
      reg,
      [{ id: 'aud1', name: 'Newsletter', deleted: false }],
      [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
    );
    reg.register(
      route('GET', '/12/accounts/acct9/custom_audiences'),
      json({ errors: [{ code: 'NOT_FOUND', message: 'account acct9 was not found' }] }, 404),
    );
    const { t, file } = setup(yaml + '  - {name: Other, account: acct9, source: news.txt}\n', source, reg);
    await snapshot(t, 'aud1', emails(5), '2025-11-01T00:00:00.000Z');
    const e = (await audiencesApply(t.ctx, opts(file, { plan: true })).catch((x: unknown) => x)) as {
      exitCode: number;
    };
    expect(e.exitCode).toBe(1);
    expect(t.stdout()).toBe('Newsletter\tacct1\taud1\tnone\t0\t0\t\t\t\nOther\tacct9\t\terror\t0\t0\t\t\t\n');
    expect(t.stderr()).toMatch(/warning: audience "Other" \(account acct9\): .*account acct9 was not found/);
    reg.verify();
  });

  it('on a terminal: a table, the lists joined; the summary on stderr', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/12/accounts/acct1/custom_audiences'), json({ data: [], next_cursor: null }));
    const t = testContext({ transport: reg, tty: true, columns: 100 });
    cleanups.push(() => t.cleanup());
    const file = path.join(t.configDir, 'a.yaml');
    fs.writeFileSync(file, 'audiences:\n  - {name: Newsletter, source: n.txt, type: email, share_with: [acct2]}\n');
    fs.writeFileSync(path.join(t.configDir, 'n.txt'), 'a@example.com\nb@example.com\n');
    await expect(audiencesApply(t.ctx, opts(file, { plan: true }))).rejects.toBeInstanceOf(PlanHasChanges);
    expect(t.stdout()).toBe(
      [
        '┌────────────┬─────────┬────┬────────┬──────┬─────────┬────────┬─────────┬───────┐',
        '│ name       │ account │ id │ action │ adds │ removes │ grants │ revokes │ drift │',
        '├────────────┼─────────┼────┼────────┼──────┼─────────┼────────┼─────────┼───────┤',
        '│ Newsletter │ acct1   │    │ create │ 2    │ 0       │ acct2  │         │       │',
        '└────────────┴─────────┴────┴────────┴──────┴─────────┴────────┴─────────┴───────┘',
        '',
      ].join('\n'),
    );
    // issue 46: an audience to create says nothing about its missing snapshot (the row says create)
    expect(t.stderr()).toBe('plan: 1 of 1 audiences would change\n');
    reg.verify();
  });

  it('max_removes and max_reject_rate refuse an audience in the plan (reported, exit 2 as the apply would)', async () => {
    const reg = new HttpRegistry();
    sizeStub(reg);
    stubs(
      reg,
      [{ id: 'aud1', name: 'Newsletter', deleted: false }],
      [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
    );
    const { t, file } = setup(yaml + '    max_removes: 2\n', { 'news.txt': emails(2).join('\n') + '\n' }, reg);
    await snapshot(t, 'aud1', emails(5), '2025-11-01T00:00:00.000Z');
    await expect(audiencesApply(t.ctx, opts(file, { plan: true }))).rejects.toMatchObject({
      exitCode: 2,
      message: '1 of 1 audiences would be refused by apply: "Newsletter"',
    });
    expect(t.stdout()).toBe('Newsletter\tacct1\taud1\trefused\t0\t3\t\t\t\n');
    expect(t.stderr()).toContain(
      'warning: audience "Newsletter" (account acct1): apply would refuse it: 3 of its 5 members would be removed (60%), more than max_removes 2 allows; nothing is sent for it: check its source (a truncated export looks like this), or if the removals are meant pass --max-removes 3 (100% turns the guard off) or raise its max_removes\n',
    );
  });

  // Issue 33: without a terminal, apply guards removals as sync does (10% of the audience), with
  // or without max_removes in the file; a truncated source no longer removes members with exit 0.
  describe('removals without max_removes in the file', () => {
    const refusedRow = {
      name: 'Newsletter',
      account: 'acct1',
      id: 'aud1',
      action: 'refused',
      adds: 0,
      removes: 30,
      grants: [],
      revokes: [],
      drift: [],
      refused:
        '30 of its 50 members would be removed (60%), more than 10% (5) allows by default when no terminal is attached; nothing is sent for it: check its source (a truncated export looks like this), or if the removals are meant pass --max-removes 30 (100% turns the guard off) or raise its max_removes',
    };
    const json = { globals: { output: 'json' as const } };
    async function truncated(more: Partial<TestContextOptions> = json, extra = '') {
      const reg = new HttpRegistry();
      sizeStub(reg);
      stubs(
        reg,
        [{ id: 'aud1', name: 'Newsletter', deleted: false }],
        [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
      );
      const s = setup(yaml + extra, { 'news.txt': emails(20).join('\n') + '\n' }, reg, more);
      await snapshot(s.t, 'aud1', emails(50), '2025-11-01T00:00:00.000Z');
      return { ...s, reg };
    }

    it('no terminal: 30 of 50 is refused in the plan row (-o json), with the numbers and the way out', async () => {
      const { t, file, reg } = await truncated();
      await expect(audiencesApply(t.ctx, opts(file, { plan: true }))).rejects.toMatchObject({ exitCode: 2 });
      expect(JSON.parse(t.stdout())).toEqual({ audiences: [refusedRow] });
      reg.verify();
    });

    it('apply: refused, nothing sent (only reads), exit 2 naming it; the row says refused', async () => {
      const { t, file, reg } = await truncated();
      const e = (await audiencesApply(t.ctx, opts(file)).catch((x: unknown) => x)) as XctlError;
      expect(e.constructor.name).toBe('UsageError');
      expect(e.exitCode).toBe(2);
      expect(e.message).toBe('1 of 1 audiences refused, nothing was sent for them: "Newsletter"');
      // The audiences, the grants, and the audience itself (its size against the snapshot).
      expect(reg.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
      const out = JSON.parse(t.stdout()) as { audiences: Array<Record<string, unknown>> };
      expect(out.audiences[0]).toMatchObject({ status: 'refused', error: `refused: ${refusedRow.refused}` });
      expect(t.stderr()).toContain(`Newsletter (acct1): refused: ${refusedRow.refused}\n`);
    });

    it('--max-removes 100% (or a count or share large enough) lets it through; a smaller one refuses', async () => {
      for (const [flag, action] of [
        ['100%', 'update'],
        ['30', 'update'],
        ['60%', 'update'],
        ['29', 'refused'],
        ['59%', 'refused'],
      ]) {
        const { t, file } = await truncated(json, '    max_removes: 0\n');
        // An update is a plan with changes (exit 10); a refused row is exit 2, as the apply that
        // follows would refuse it (issue 40 item 8: the plan gate agrees with the apply).
        const e = (await audiencesApply(t.ctx, opts(file, { plan: true, maxRemoves: flag })).catch(
          (x: unknown) => x,
        )) as XctlError;
        expect(e.exitCode, flag).toBe(action === 'update' ? 10 : 2);
        const row = (JSON.parse(t.stdout()) as { audiences: Array<{ action: string; refused?: string }> })
          .audiences[0]!;
        expect(row.action, flag).toBe(action);
        if (action === 'refused') expect(row.refused).toContain(`more than --max-removes ${flag}`);
      }
    });

    it("the file's max_removes takes a share; a bad --max-removes exits 2 before anything is read", async () => {
      let s = await truncated(json, "    max_removes: '60%'\n");
      await expect(audiencesApply(s.t.ctx, opts(s.file, { plan: true }))).rejects.toBeInstanceOf(PlanHasChanges);
      expect(JSON.parse(s.t.stdout()).audiences[0].action).toBe('update');
      s = await truncated(json, "    max_removes: '59%'\n");
      await expect(audiencesApply(s.t.ctx, opts(s.file, { plan: true }))).rejects.toMatchObject({ exitCode: 2 });
      expect(JSON.parse(s.t.stdout()).audiences[0].refused).toContain('more than max_removes 59% (29) allows');
      const bad = setup(yaml, source, new HttpRegistry());
      const e = (await audiencesApply(bad.t.ctx, opts(bad.file, { plan: true, maxRemoves: '101%' })).catch(
        (x: unknown) => x,
      )) as XctlError;
      expect([e.exitCode, e.message]).toEqual([
        2,
        '--max-removes must be a number of members or a percentage up to 100% (got "101%")',
      ]);
    });

    // Issue 43: sync's own guard stands behind apply's. A source is cut to 20 members after the
    // plan read 51 (a file rewritten while apply runs; here the plan of the next audience rewrites
    // it when it reads that audience's grants): the plan's row is an update with no removal, and
    // the sync that applies it finds 30 of 50 to remove and refuses them, sending nothing.
    // Without the call of the guard in sync, the removals went out.
    it('a source cut after the plan: the sync that applies it refuses the removals (exit 2, nothing sent)', async () => {
      const reg = new HttpRegistry();
      const two = yaml + '  - name: Other\n    source: other.txt\n    share_with: [acct2]\n';
      const { t, file, dir } = setup(
        two,
        { 'news.txt': emails(51).join('\n') + '\n', 'other.txt': 'x@example.com\n' },
        reg,
        json,
      );
      const grants = {
        data: [{ id: 'p1', granted_account_id: 'acct2', permission_level: 'READ_ONLY', deleted: false }],
        next_cursor: null,
      };
      reg.register(
        route('GET', '/12/accounts/acct1/custom_audiences'),
        answer({
          data: [
            { id: 'aud1', name: 'Newsletter', deleted: false },
            { id: 'aud2', name: 'Other', deleted: false },
          ],
          next_cursor: null,
        }),
      );
      reg.register(route('GET', '/12/accounts/acct1/custom_audiences/aud1/permissions'), answer(grants));
      sizeStub(reg);
      let cut = false;
      reg.register(route('GET', '/12/accounts/acct1/custom_audiences/aud2/permissions'), (req) => {
        fs.writeFileSync(path.join(dir, 'news.txt'), emails(20).join('\n') + '\n');
        cut = true;
        return answer(grants)(req);
      });
      await snapshot(t, 'aud1', emails(50), '2025-11-01T00:00:00.000Z');
      await snapshot(t, 'aud2', ['x@example.com'], '2025-11-01T00:00:00.000Z');
      const e = (await audiencesApply(t.ctx, opts(file)).catch((x: unknown) => x)) as XctlError;
      expect(cut).toBe(true);
      expect(reg.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      const rows = (JSON.parse(t.stdout()) as { audiences: Array<Record<string, unknown>> }).audiences;
      expect(rows[0]).toMatchObject({ name: 'Newsletter', action: 'update', status: 'failed', adds: 0, removes: 0 });
      expect(t.stderr()).toContain(
        "this sync would remove 30 of the audience's 50 members (60%), more than --max-removes 10% (5) allows",
      );
      expect([e.exitCode, e.message]).toEqual([
        2,
        "this sync would remove 30 of the audience's 50 members (60%), more than --max-removes 10% (5) allows; nothing was sent",
      ]);
    });

    it('at a terminal (stdin and stderr): no default limit, as sync', async () => {
      const { t, file } = await truncated({ tty: { stdin: true, stderr: true } });
      await expect(audiencesApply(t.ctx, opts(file, { plan: true }))).rejects.toBeInstanceOf(PlanHasChanges);
      expect(t.stdout()).toBe('Newsletter\tacct1\taud1\tupdate\t0\t30\t\t\t\n');
    });

    it('at a terminal, apply asks before removing past 10%, naming the count; "n" refuses it, nothing sent', async () => {
      const { t, file, reg } = await truncated({ tty: { stdin: true, stderr: true }, stdin: 'n\n' });
      const e = (await audiencesApply(t.ctx, opts(file)).catch((x: unknown) => x)) as XctlError;
      expect(e.exitCode, t.stderr().slice(0, 600)).toBe(2);
      expect(t.stderr()).toContain('remove 30 of the 50 members of "Newsletter" (acct1) (60%)? [y/N]');
      expect(t.stderr()).toContain('Newsletter (acct1): refused: its removals were not confirmed at the terminal');
      expect(reg.requests.every((r) => r.method === 'GET')).toBe(true);
    });
  });
});

describe('apply', () => {
  it('a create the service refuses: the audience fails (exit 2, a refusal for good, its error), and its intent is dropped', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/12/accounts/acct1/custom_audiences'), json({ data: [], next_cursor: null }));
    reg.register(
      route('POST', '/12/accounts/acct1/custom_audiences'),
      json({ errors: [{ code: 'INVALID_PARAMETER', message: 'name is taken', parameter: 'name' }] }, 400),
    );
    const { t, file } = setup(
      'audiences:\n  - {name: N, source: n.txt, type: email}\n',
      { 'n.txt': 'a@example.com\n' },
      reg,
    );
    const e = (await audiencesApply(t.ctx, opts(file)).catch((x: unknown) => x)) as {
      exitCode: number;
      message: string;
    };
    // issue 46: HTTP 400 is refused again by the same apply: bad input (2), not 1 or 4
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('name is taken');
    expect(t.stderr()).toContain('warning: N (acct1): ');
    expect(readState(statePath(t.configDir, 'default', 'acct1'))).toEqual({
      xctl_apply_state: 1,
      audiences: [],
      creating: [],
    });
    expect(
      reg.requests
        .find((r) => r.method === 'POST')!
        .form()
        .get('name'),
    ).toBe('N');
    reg.verify();
  });
});

describe('the apply state', () => {
  it('is replaced whole, private, and keeps intents until the create is recorded', () => {
    const t = testContext();
    cleanups.push(() => t.cleanup());
    const file = statePath(t.configDir, 'p/1', 'acct1');
    expect(file).toBe(path.join(t.configDir, 'audiences', 'p_2F1', 'acct1', 'apply-state.json'));
    expect(readState(file)).toEqual({ xctl_apply_state: 1, audiences: [], creating: [] });
    updateState(file, (s) => s.creating.push({ kind: 'custom_audience', name: 'N' }));
    expect(readState(file).creating).toEqual([{ kind: 'custom_audience', name: 'N' }]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['apply-state.json']);
  });
});

describe('the state folder', () => {
  it('one others can write to, or a link, is refused before anything is written in it', (c) => {
    if (process.getuid === undefined) return c.skip('modes are POSIX');
    const t = testContext();
    cleanups.push(() => t.cleanup());
    const shared = path.join(t.configDir, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o775);
    const file = statePath(shared, 'p', 'acct1');
    expect(() => updateState(file, () => {})).toThrow(
      `refusing to use the state folder: ${shared}, a folder above it, can be written by others (mode 775, not sticky)`,
    );
    expect(fs.readdirSync(shared)).toEqual([]);
    const real = path.join(t.configDir, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    const root = path.join(t.configDir, 'root');
    fs.mkdirSync(path.join(root, 'audiences', 'p'), { recursive: true, mode: 0o700 });
    fs.symlinkSync(real, path.join(root, 'audiences', 'p', 'acct1'));
    expect(() => updateState(statePath(root, 'p', 'acct1'), () => {})).toThrow(
      `refusing to use the state folder ${path.join(root, 'audiences', 'p', 'acct1')}: it is a symbolic link`,
    );
    expect(fs.readdirSync(real)).toEqual([]);
  });
});

describe('command sources', () => {
  const spec = (command: string, cwd: string, timeoutMs = 5000): AudienceSpec => ({
    name: 'N',
    kind: 'custom_audience',
    account: 'acct1',
    source: { command, timeoutMs, cwd },
    type: 'email',
    columns: [],
    format: 'auto',
    hashed: false,
    shareWith: [],
    adopt: false,
    line: 2,
  });
  const fail = async (p: Promise<unknown>) => {
    const e = await p.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(XctlError);
    return (e as XctlError).message;
  };

  it('runs in the file folder; its output is saved privately; XCTL_* variables (credentials) are not passed', async () => {
    const t = testContext({ env: { HOME_HINT: 'kept' } });
    cleanups.push(() => t.cleanup());
    fs.writeFileSync(path.join(t.configDir, 'list.txt'), 'a@example.com\n');
    const cmd = 'cat list.txt; echo "$HOME_HINT@example.com"; env | grep -c ^XCTL_ || true';
    const out = await sourceFile(t.ctx, spec(cmd, t.configDir), path.join(t.configDir, 'tmp'));
    expect(fs.readFileSync(out, 'utf8')).toBe('a@example.com\nkept@example.com\n0\n');
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    expect(t.env.XCTL_API_SECRET).toBe('test-api-secret'); // it was there to leak
  });

  it('a non-zero exit or a timeout fails it, with the end of its stderr, and leaves no output', async () => {
    const t = testContext();
    cleanups.push(() => t.cleanup());
    const tmp = path.join(t.configDir, 'tmp');
    expect(await fail(sourceFile(t.ctx, spec('echo a@example.com; echo boom >&2; exit 3', t.configDir), tmp))).toBe(
      'audience "N": its command exited with code 3; its output is not used (stderr: boom)',
    );
    const started = Date.now();
    expect(await fail(sourceFile(t.ctx, spec('echo a@example.com; sleep 20 | cat', t.configDir, 300), tmp))).toBe(
      'audience "N": its command ran longer than its timeout (0.3 s); its output is not used',
    );
    expect(Date.now() - started).toBeLessThan(5000); // the whole group was killed, the pipe too
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('two audiences whose names share their first 40 bytes get files of their own (a full hash)', async () => {
    const t = testContext();
    cleanups.push(() => t.cleanup());
    const tmp = path.join(t.configDir, 'tmp');
    const a = { ...spec('echo a@example.com', t.configDir), name: 'Newsletter subscribers Europe 2026 - list A' };
    const b = { ...spec('echo b@example.com', t.configDir), name: 'Newsletter subscribers Europe 2026 - list B' };
    const outA = await sourceFile(t.ctx, a, tmp);
    const outB = await sourceFile(t.ctx, b, tmp);
    expect(outA).not.toBe(outB);
    expect(fs.readFileSync(outA, 'utf8')).toBe('a@example.com\n');
    expect(fs.readFileSync(outB, 'utf8')).toBe('b@example.com\n');
    expect(path.basename(outA)).toMatch(/^source-[0-9a-f]{64}\.txt$/);
  });

  it('runs only when allowed: a file with commands is refused (exit 2) before anything is read or sent', async () => {
    const { t, file, dir } = setup(
      'defaults:\n  account: acct1\n  type: email\naudiences:\n  - name: N\n    command: "touch ran; echo a@example.com"\n',
    );
    const e = await audiencesApply(t.ctx, opts(file, { plan: true })).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toBe(
      `${file} runs commands ("N": touch ran; echo a@example.com); they would run as you, with your files and credentials in reach: nothing was run`,
    );
    expect((e as UsageError).exitCode, (e as Error).message).toBe(2);
    expect(fs.existsSync(path.join(dir, 'ran'))).toBe(false);
  });

  it('a missing source file is an input error naming the audience', async () => {
    const t = testContext();
    cleanups.push(() => t.cleanup());
    const s = { ...spec('x', t.configDir), source: { file: path.join(t.configDir, 'nope.csv') } };
    expect(await usage(sourceFile(t.ctx, s, t.configDir))).toBe(
      `audience "N": source ${path.join(t.configDir, 'nope.csv')} does not exist`,
    );
  });
});
