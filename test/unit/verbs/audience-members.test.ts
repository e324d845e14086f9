// `xctl audiences upload`, `do-not-reach upload`, `sync`, `hash` and `inspect` tested where they
// live: flags -> options (runF), the exact requests and output, and every refusal before
// anything is sent (exit 2, no request). What only a real process against the real sandbox
// proves (journals, resume, signals, big inputs, members digest for digest) is in
// test/e2e/audience-members.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
// First: the pipelines hash in worker threads, which load the built hash-worker.js.
import '../../helpers/hash-worker.js';
import { audiencesHash, register as registerHash } from '../../../src/commands/audiences/hash.js';
import { register as registerInspect } from '../../../src/commands/audiences/inspect.js';
import { audiencesSync, register as registerSync } from '../../../src/commands/audiences/sync.js';
import {
  audiencesUpload,
  register as registerUpload,
  registerDoNotReach,
} from '../../../src/commands/audiences/upload.js';
import type { UploadOptions } from '../../../src/commands/audiences/upload.js';
import { failure, range, sha } from '../../helpers/audiences.js';
import { HttpRegistry, json, type Responder, route } from '../../helpers/http-registry.js';
import { testContext, type TestContext, type TestContextOptions } from '../../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

const USERS = '/12/accounts/acct1/custom_audiences/ca1/users';

function ctx(o: TestContextOptions = {}): { t: TestContext; http: HttpRegistry; dir: string } {
  const http = o.transport instanceof HttpRegistry ? o.transport : new HttpRegistry();
  t = testContext({ ...o, transport: http });
  return { t, http, dir: t.configDir };
}
const write = (name: string, text: string) => {
  const f = path.join(t.configDir, name);
  fs.writeFileSync(f, text);
  return f;
};
/** What upload sends, parsed: the users of each request's operations. */
const usersOf = (body: unknown) =>
  (body as Array<{ params: { users: Array<Record<string, string[]>> } }>).flatMap((op) => op.params.users);
const upload = (o: Partial<UploadOptions> & { listId: string; input: string }): UploadOptions => ({
  target: 'custom_audience',
  format: 'auto',
  concurrency: '4',
  column: [],
  ignoreColumn: [],
  ...o,
});
/** The users endpoint answering each request with the count of users it was sent. */
const acknowledge = (req: { json(): unknown }) => {
  const n = usersOf(req.json()).length;
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ data: { success_count: n, total_count: n } }),
  };
};

describe('audiences upload: flags -> options (runF)', () => {
  it('defaults, repeatable --column, the target and the positionals', async () => {
    ctx();
    expect(await t.optionsOf(registerUpload, ['upload', 'ca1', 'f.csv'])).toEqual(
      upload({ listId: 'ca1', input: 'f.csv' }),
    );
    expect(
      await t.optionsOf(registerUpload, [
        'upload',
        'ca1',
        '-',
        '--column',
        'email=E',
        '--column',
        'phone_number=P',
        '--delete',
        '--dry-run',
        '--max-reject-rate',
        '0.1',
      ]),
    ).toEqual(
      upload({
        listId: 'ca1',
        input: '-',
        column: ['email=E', 'phone_number=P'],
        delete: true,
        dryRun: true,
        maxRejectRate: '0.1',
      }),
    );
  });

  it('do-not-reach upload: its own target, and no --effective-at (commander refuses it, exit 2)', async () => {
    ctx();
    expect(await t.optionsOf(registerDoNotReach, ['upload', 'd1', 'f.txt', '--type', 'email'])).toEqual(
      upload({ target: 'do_not_reach_list', listId: 'd1', input: 'f.txt', type: 'email' }),
    );
    const e = await failure(
      t.optionsOf(registerDoNotReach, ['upload', 'd1', 'f.txt', '--effective-at', '2030-01-01T00:00:00Z']),
    );
    expect([e.exitCode, e.message]).toEqual([2, "error: unknown option '--effective-at'"]);
  });
});

describe('audiences upload: the run function', () => {
  it('sends each user hashed as an Update, and prints the summary (piped -o json)', async () => {
    const http = new HttpRegistry().register(route('POST', USERS), acknowledge);
    ctx({ transport: http, globals: { output: 'json' } });
    const f = write('e.txt', 'Ada@Example.com\n b@example.com \nnot-an-email\n');
    await audiencesUpload(t.ctx, upload({ listId: 'ca1', input: f, type: 'email' }));
    http.verify();
    const [op] = http.requests[0]!.json() as Array<{ operation_type: string; params: Record<string, unknown> }>;
    expect(op!.operation_type).toBe('Update');
    expect(usersOf(http.requests[0]!.json())).toEqual([
      { email: [sha('ada@example.com')] },
      { email: [sha('b@example.com')] },
    ]);
    expect(JSON.parse(t.stdout())).toMatchObject({
      read: 3,
      valid: 2,
      rejected: 1,
      sent: 2,
      acknowledged: 2,
      batches: 1,
    });
  }, 30_000);

  it('a missing audience is the API error (exit 1), nothing acknowledged', async () => {
    const http = new HttpRegistry().register(
      route('POST', '/12/accounts/acct1/custom_audiences/nosuch/users'),
      json({ errors: [{ code: 'NOT_FOUND', message: 'Custom audience nosuch was not found' }] }, 404),
    );
    ctx({ transport: http });
    const e = await failure(
      audiencesUpload(t.ctx, upload({ listId: 'nosuch', input: write('e.txt', 'a@example.com\n'), type: 'email' })),
    );
    expect(e.exitCode).toBe(1);
    expect(e.message).toMatch(/Custom audience nosuch was not found \(HTTP 404, code NOT_FOUND/);
  }, 30_000);

  it('--dry-run --out writes each request body as one JSON line and sends nothing', async () => {
    const { http } = ctx({ globals: { output: 'json' } });
    const lines = range(0, 1200).map((i) => (i % 10 === 9 ? ` USER${i - 1}@Example.com ` : `user${i}@example.com`));
    const out = path.join(t.configDir, 'bodies.jsonl');
    const expiresAt = new Date(t.clock.now() + 86400_000).toISOString();
    await audiencesUpload(
      t.ctx,
      upload({
        listId: 'ca1',
        input: write('e.txt', lines.join('\n') + '\n'),
        type: 'email',
        batchSize: '500',
        expiresAt,
        dryRun: true,
        out,
      }),
    );
    expect(http.requests).toEqual([]);
    expect(JSON.parse(t.stdout())).toMatchObject({ read: 1200, valid: 1200, sent: 1200, acknowledged: 0, batches: 3 });
    const bodies = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Array<{ operation_type: string; params: { expires_at?: string } }>);
    expect(bodies.map((b) => usersOf(b).length)).toEqual([500, 500, 200]);
    expect(bodies[0]![0]!.operation_type).toBe('Update');
    expect(bodies[0]![0]!.params.expires_at).toBe(expiresAt);
    expect(new Set(bodies.flatMap((b) => usersOf(b).map((u) => u.email![0]))).size).toBe(1080);
  }, 30_000);

  it('by default fills each request up to 4,900,000 bytes, one operation each; --batch-size asks for fewer', async () => {
    const http = new HttpRegistry().register(route('POST', USERS), acknowledge, { times: 3 });
    ctx({ transport: http, globals: { output: 'json' } });
    const f = write(
      'e.txt',
      range(0, 150_000)
        .map((i) => `user${i}@example.com\n`)
        .join(''),
    );
    await audiencesUpload(t.ctx, upload({ listId: 'ca1', input: f, type: 'email' }));
    // {"email":["<64 hex>"]}, is 79 bytes: 62,024 users (and the operation around them) fill 4,899,946 bytes
    const sizes = http.requests.map((r) => Buffer.byteLength(r.body));
    const bodies = http.requests.map((r) => r.json() as unknown[]);
    expect(bodies.map((b) => b.length)).toEqual([1, 1, 1]);
    expect(bodies.map((b) => usersOf(b).length)).toEqual([62_024, 62_024, 25_952]);
    expect(sizes[0]).toBeLessThanOrEqual(4_900_000);
    expect(sizes[0]).toBeGreaterThan(4_899_900);
    expect(JSON.parse(t.stdout())).toMatchObject({ valid: 150_000, acknowledged: 150_000, batches: 3 });

    const fewer = new HttpRegistry().register(route('POST', USERS), acknowledge, { times: 3 });
    ctx({ transport: fewer, globals: { output: 'json' } });
    const g = write(
      'e.txt',
      range(0, 6000)
        .map((i) => `user${i}@example.com\n`)
        .join(''),
    );
    await audiencesUpload(t.ctx, upload({ listId: 'ca1', input: g, type: 'email', batchSize: '2500' }));
    expect(fewer.requests.map((r) => usersOf(r.json()).length)).toEqual([2500, 2500, 1000]);
  }, 60_000);

  it('a CRM export of many chunks, with and without notes over several lines: every email, in order', async () => {
    // Chunks are cut without looking at quotes when no quoted field holds a line break (the
    // pre-send read says so); with one that does, they are cut outside quoted fields.
    for (const multi of [false, true]) {
      const { http } = ctx({ globals: { output: 'json' } });
      const rows = range(0, 40_000).map(
        (i) =>
          `Person ${i},${i % 5 ? `u${i}@x.com` : ` U${i}@X.COM`},+1 415 555 0100,${i % 3 && !multi ? 'ok' : `"met, said ""hi""${multi ? '\nthen\nand\nmore' : ''}"`}`,
      );
      const f = write('crm.csv', `Name,Email,Phone,Notes\n${rows.join('\n')}\n`);
      const out = path.join(t.configDir, 'bodies.jsonl');
      await audiencesUpload(t.ctx, upload({ listId: 'ca1', input: f, column: ['email=Email'], dryRun: true, out }));
      const sent = fs
        .readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .flatMap((l) => usersOf(JSON.parse(l)).map((u) => u.email![0]!));
      expect(sent).toEqual(range(0, 40_000).map((i) => sha(`u${i}@x.com`)));
      expect(JSON.parse(t.stdout())).toMatchObject({ read: 40_000, joined_lines: multi ? 120_000 : 0 });
      expect(http.requests).toEqual([]);
      t.cleanup();
    }
  }, 60_000);

  it('every record rejected: exit 2, nothing sent, the rejects file named in the hint', async () => {
    const { http } = ctx();
    const rejects = path.join(t.configDir, 'rejects.csv');
    const e = await failure(
      audiencesUpload(
        t.ctx,
        upload({ listId: 'ca1', input: write('bad.csv', 'email\nnot-an-email\nalso bad\n'), rejects }),
      ),
    );
    expect([e.exitCode, e.message]).toEqual([2, 'none of the 2 records could be used: every one was rejected']);
    expect(e.hint).toContain(`reasons are in ${rejects}`);
    expect(fs.readFileSync(rejects, 'utf8').trim().split('\n')).toHaveLength(3);
    expect(http.requests).toEqual([]);
  }, 30_000);

  // Issue 43: blank lines are not values. 1,500 emails and 750 blank lines is a clean file (a
  // gate counting blanks as rejects said "33.3% rejected", exit 2, nothing sent). Every reader:
  // one email a line (the fast path), one column with a header, several columns, quoted fields,
  // JSON lines; blank lines of nothing, of spaces and of delimiters only.
  it.each([
    ['lines', 'e.txt', (i: number) => `u${i}@example.com`, ['', '  ']],
    ['one csv column', 'e.csv', (i: number) => `u${i}@example.com`, ['', ' '], 'email'],
    ['csv', 'e.csv', (i: number) => `u${i}@example.com,N${i}`, ['', ','], 'email,name'],
    ['quoted csv', 'e.csv', (i: number) => `"u${i}@example.com","N, ${i}"`, ['', ',', '  '], 'email,name'],
    ['tsv', 'e.tsv', (i: number) => `u${i}@example.com\tN${i}`, ['', '\t'], 'email\tname'],
    ['jsonl', 'e.jsonl', (i: number) => JSON.stringify({ email: `u${i}@example.com` }), ['', ' ']],
  ] as Array<[string, string, (i: number) => string, string[], string?]>)(
    'blank lines are not rejects for the reject-rate gate: %s, 1,500 values and 750 blank lines is exit 0',
    async (_name, file, row, blanks, header) => {
      const http = new HttpRegistry().register(route('POST', USERS), acknowledge, { times: Infinity });
      ctx({ transport: http, globals: { output: 'json' } });
      const lines = header === undefined ? [] : [header];
      for (let i = 0; i < 1500; i++) {
        lines.push(row(i));
        if (i % 2 === 1) lines.push(blanks[i % blanks.length]!);
      }
      const type = header === undefined && file !== 'e.jsonl' ? 'email' : undefined;
      const column = file === 'e.jsonl' ? ['email=email'] : [];
      await audiencesUpload(
        t.ctx,
        upload({ listId: 'ca1', input: write(file, lines.join('\n') + '\n'), type, column }),
      );
      expect(JSON.parse(t.stdout())).toMatchObject({ read: 1500, valid: 1500, rejected: 0, blank: 750, sent: 1500 });
      expect(http.requests.flatMap((r) => usersOf(r.json()))).toHaveLength(1500);
    },
    30_000,
  );

  it('refuses bad input and flags before sending anything (exit 2)', async () => {
    const { http } = ctx();
    const hashed = write('hashed.txt', `${sha('a@example.com')}\n`);
    const later = (days: number) => new Date(t.clock.now() + days * 86400_000).toISOString();
    const cases: Array<[Partial<UploadOptions>, RegExp]> = [
      [{ type: 'email' }, /line 1 \(email\) looks like a SHA-256 digest[\s\S]*--hashed/],
      [{}, /needs --type/],
      [{ type: 'fax' }, /--type must be one of/],
      [{ type: 'email', column: ['email=E'] }, /--type and --column are exclusive/],
      [{ type: 'email', out: 'x.jsonl' }, /--out writes request bodies instead of sending them: use it with --dry-run/],
      [{ type: 'email', batchSize: '0' }, /--batch-size must be a whole number from 1 to 2000000 \(got "0"\)/],
      [
        { type: 'email', expiresAt: later(400) },
        /--expires-at must be at most 13 months after effective_at \(or now, without one\)/,
      ],
      [
        { type: 'email', effectiveAt: '2030-01-02T00:00:00Z', expiresAt: '2030-01-01T00:00:00Z' },
        /--expires-at must be after effective_at/,
      ],
      [{ type: 'phone_number', defaultCountry: 'XX' }, /--default-country must be a two-letter country code/],
      [{ type: 'email', input: path.join(t.configDir, 'missing.txt') }, /no such file/],
      [{ type: 'email', dryRun: true, journal: 'j' }, /--dry-run sends nothing and keeps no journal/],
      [{ listId: 'bad-id!', type: 'email' }, /<audience-id> must be an id of letters and digits/],
      [{ target: 'do_not_reach_list', type: 'handle' }, /do-not-reach lists take only email and phone_number/],
      [
        { target: 'do_not_reach_list', type: 'email', expiresAt: later(396) },
        /--expires-at must be less than 13 months ahead \(do-not-reach list\)/,
      ],
    ];
    for (const [o, message] of cases) {
      const e = await failure(audiencesUpload(t.ctx, upload({ listId: 'ca1', input: hashed, ...o })));
      expect([e.exitCode, `${e.message}\n${e.hint}`], JSON.stringify(o)).toEqual([2, expect.stringMatching(message)]);
    }
    expect(http.requests).toEqual([]);
  }, 60_000);
});

describe('audiences sync', () => {
  it('flags -> options (runF): both positionals optional (--apply names them)', async () => {
    ctx();
    expect(await t.optionsOf(registerSync, ['sync', 'ca1', 'f.txt', '--plan', '--max-removes', '5%'])).toEqual({
      audienceId: 'ca1',
      file: 'f.txt',
      plan: true,
      maxRemoves: '5%',
      batchSize: '2500',
      concurrency: '4',
      format: 'auto',
      column: [],
      ignoreColumn: [],
    });
    expect(await t.optionsOf(registerSync, ['sync', '--apply', 'plan.json'])).toEqual({
      apply: 'plan.json',
      batchSize: '2500',
      concurrency: '4',
      format: 'auto',
      column: [],
      ignoreColumn: [],
    });
  });

  it('refuses what it cannot keep exactly, sending nothing (exit 2)', async () => {
    // A first sync reads the audience's size (one GET); nothing is ever posted.
    const http = new HttpRegistry().register(
      route('GET', '/12/accounts/acct1/custom_audiences/ca1'),
      json({ data: { id: 'ca1', audience_size: 0 } }),
      { times: Infinity },
    );
    ctx({ transport: http });
    const one = write('one.txt', 'user1@example.com\n');
    const base = { audienceId: 'ca1', file: one, type: 'email', format: 'auto', batchSize: '2500', concurrency: '4' };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [
        { file: write('two.csv', 'email,phone_number\na@example.com,+14155552671\n'), type: undefined },
        /one identifier type, and this input names 2/,
      ],
      [{ type: 'partner_user_id' }, /partner_user_id is sent as it is/],
      [{ file: write('empty.txt', '') }, /is empty: a sync to it would remove every member/],
      [{ file: write('bad.txt', 'nope\nstill nope\n') }, /none of the 2 records could be used/],
      [{ rebuild: true, fromUpload: 'x' }, /--rebuild and --from-upload are exclusive/],
      [{ plan: true, fromUpload: 'x' }, /--from-upload writes the snapshot: run it without --plan/],
      [{ audienceId: 'bad-id!' }, /<audience-id> must be an id of letters and digits/],
      [{ type: 'fax' }, /--type must be one of/],
      [{ file: undefined }, /^missing <file>: sync <audience-id> <file>, or sync --apply plan.json$/],
      [{ out: 'p.json' }, /^--out saves a plan: use it with --plan$/],
      [{ plan: true, out: 'p.json', file: '-' }, /stdin cannot be; give a file/],
      [{ apply: 'p.json', rebuild: true }, /--apply sends a saved plan as it is/],
      [{ maxRemoves: '101%' }, /--max-removes/],
    ];
    for (const [o, message] of cases) {
      const e = await failure(audiencesSync(t.ctx, { ...base, ...o } as never));
      expect([e.exitCode, e.message], JSON.stringify(o)).toEqual([2, expect.stringMatching(message)]);
    }
    expect(http.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  }, 60_000);
});

/**
 * An audience the stubs keep: each Update adds its users' digests and each Delete removes them,
 * and its GET answers the size, as the service does (sync checks the size before and after).
 */
function keptAudience(): { get: Responder; post: Responder } {
  const members = new Set<string>();
  return {
    get: (req) => json({ data: { id: 'ca1', audience_size: members.size } })(req),
    post: (req) => {
      for (const op of req.json() as Array<{
        operation_type: string;
        params: { users: Array<Record<string, string[]>> };
      }>)
        for (const u of op.params.users)
          for (const d of Object.values(u).flat())
            if (op.operation_type === 'Delete') members.delete(d);
            else members.add(d);
      return acknowledge(req);
    },
  };
}

describe('audiences sync: the removal guard (--max-removes), in the run function', () => {
  // Issue 43: skipping the guard's call in sync passed every unit test (the guard's own tests
  // call checkRemoves directly). A first sync of 50 members, then a source cut to 20: without a
  // terminal, 30 of 50 (60%) is over the default 10%, and over an explicit --max-removes 29.
  async function afterFirstSync() {
    const audience = keptAudience();
    const http = new HttpRegistry()
      .register(route('GET', '/12/accounts/acct1/custom_audiences/ca1'), audience.get, { times: Infinity })
      .register(route('POST', USERS), audience.post, { times: Infinity });
    ctx({ transport: http, globals: { output: 'json' } });
    const emails = range(0, 50).map((i) => `u${i}@example.com`);
    const base = { audienceId: 'ca1', type: 'email', format: 'auto', batchSize: '2500', concurrency: '4' };
    await audiencesSync(t.ctx, { ...base, file: write('all.txt', emails.join('\n') + '\n') } as never);
    expect(JSON.parse(t.stdout())).toMatchObject({ adds: 50, removes: 0 });
    const posted = http.requests.filter((r) => r.method === 'POST').length;
    const cut = write('cut.txt', emails.slice(0, 20).join('\n') + '\n');
    return { http, posted, base, cut };
  }

  it.each([
    [undefined, 'more than --max-removes 10% (5) allows by default when no terminal is attached'],
    ['29', 'more than --max-removes 29 allows'],
    ['59%', 'more than --max-removes 59% (29) allows'],
  ])(
    '--max-removes %s: 30 of 50 is refused, exit 2, nothing sent',
    async (maxRemoves, words) => {
      const { http, posted, base, cut } = await afterFirstSync();
      const e = await failure(audiencesSync(t.ctx, { ...base, file: cut, maxRemoves } as never));
      expect(e.exitCode).toBe(2);
      expect(e.message).toBe(
        `this sync would remove 30 of the audience's 50 members (60%), ${words}; nothing was sent`,
      );
      expect(http.requests.filter((r) => r.method === 'POST')).toHaveLength(posted);
    },
    30_000,
  );

  it('blank lines are not rejects for the reject-rate gate of a sync either (1,500 values, 750 blank lines)', async () => {
    const audience = keptAudience();
    const http = new HttpRegistry()
      .register(route('GET', '/12/accounts/acct1/custom_audiences/ca1'), audience.get, { times: Infinity })
      .register(route('POST', USERS), audience.post, { times: Infinity });
    ctx({ transport: http, globals: { output: 'json' } });
    const lines = range(0, 1500).flatMap((i) => (i % 2 ? [`u${i}@example.com`, ''] : [`u${i}@example.com`]));
    const base = { audienceId: 'ca1', type: 'email', format: 'auto', batchSize: '2500', concurrency: '4' };
    await audiencesSync(t.ctx, { ...base, file: write('blanks.txt', lines.join('\n') + '\n') } as never);
    expect(JSON.parse(t.stdout())).toMatchObject({ read: 1500, rejected: 0, adds: 1500 });
  }, 30_000);

  it('--max-removes 30 lets the same removals through (the refusals above are the guard)', async () => {
    const { http, posted, base, cut } = await afterFirstSync();
    await audiencesSync(t.ctx, { ...base, file: cut, maxRemoves: '30' } as never);
    expect(http.requests.filter((r) => r.method === 'POST').length).toBeGreaterThan(posted);
  }, 30_000);
});

describe('audiences hash', () => {
  it('flags -> options (runF): no file is stdin; --value is repeatable', async () => {
    ctx();
    expect(await t.optionsOf(registerHash, ['hash', '--value', 'a@x.com', '--value', 'b@x.com'])).toEqual({
      file: '-',
      value: ['a@x.com', 'b@x.com'],
      format: 'auto',
      column: [],
      ignoreColumn: [],
    });
  });

  it('a value where a file goes: exit 2 with the --value hint; --value and stdin hash single values', async () => {
    ctx();
    const e = await failure(audiencesHash(t.ctx, { file: 'Ada@x.com', format: 'auto' }));
    expect([e.exitCode, e.message, e.hint]).toEqual([
      2,
      '<file>: Ada@x.com does not exist',
      'to hash a value, give it with --value: xctl audiences hash --value Ada@x.com',
    ]);
    await audiencesHash(t.ctx, { file: '-', value: ['Ada@x.com'], format: 'auto' });
    expect(t.stdout()).toBe(`${sha('ada@x.com')}\n`);
    t.cleanup();
    ctx({ stdin: 'Ada@x.com\n' });
    await audiencesHash(t.ctx, { file: '-', type: 'email', format: 'auto' });
    expect(t.stdout()).toBe(`${sha('ada@x.com')}\n`);
  }, 30_000);

  it('--value refuses a file, other flags, a value of no known type, an invalid one (exit 2)', async () => {
    ctx();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ file: 'x.csv' }, '--value hashes the values given: give no file with it'],
      [{ explain: true }, '--value takes --type (and --hashed, --default-country) only'],
      [{ value: ['Ada'] }, '--value "Ada": say what it is with --type (it is not an email)'],
      [
        { value: ['12'], type: 'phone_number' },
        '--value "12" is not a valid phone_number: national phone number without --default-country',
      ],
    ];
    for (const [o, message] of cases) {
      const e = await failure(audiencesHash(t.ctx, { file: '-', value: ['a@x.com'], format: 'auto', ...o }));
      expect([e.exitCode, e.message]).toEqual([2, message]);
    }
  }, 30_000);

  it('prints exactly the digests upload --dry-run --out would send, in order (csv of several columns, 30,000 lines)', async () => {
    const { http } = ctx({ env: { XCTL_API_KEY: undefined } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-hash-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const write = (name: string, text: string) => (fs.writeFileSync(path.join(dir, name), text), path.join(dir, name));
    const csv = write(
      'people.csv',
      'Email,Phone\n A@Example.com ,(415) 555-2671\nnot-an-email,\nb@example.com,\n,+44 20 7946 0958\n',
    );
    const out = path.join(dir, 'bodies.jsonl');
    await audiencesUpload(t.ctx, upload({ listId: 'ca1', input: csv, defaultCountry: 'US', dryRun: true, out }));
    const sent = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) => usersOf(JSON.parse(l)));
    t.cleanup();
    ctx({ env: { XCTL_API_KEY: undefined } });
    await audiencesHash(t.ctx, { file: csv, defaultCountry: 'US', format: 'auto' });
    expect(t.stdout()).toBe(
      'email,phone_number\n' + sent.map((u) => `${u.email?.[0] ?? ''},${u.phone_number?.[0] ?? ''}`).join('\n') + '\n',
    );
    expect(t.stdout()).toContain(`${sha('a@example.com')},${sha('14155552671')}`);
    expect(t.stderr()).toContain('line 3 (Email): not an email address');

    const many = range(0, 30_000).map((i) => (i % 7 ? `u${i}@x.com` : ` U${i}@X.COM`));
    const lines = write('many.txt', many.join('\n') + '\n');
    const out2 = path.join(dir, 'bodies2.jsonl');
    await audiencesUpload(t.ctx, upload({ listId: 'ca1', input: lines, type: 'email', dryRun: true, out: out2 }));
    const sent2 = fs
      .readFileSync(out2, 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) => usersOf(JSON.parse(l)).map((u) => u.email![0]!));
    t.cleanup();
    ctx({ stdin: fs.readFileSync(lines) });
    await audiencesHash(t.ctx, { file: '-', type: 'email', format: 'auto' });
    expect(t.stdout().trim().split('\n')).toEqual(sent2);
    expect(sent2[0]).toBe(sha('u0@x.com'));
    expect(sent2).toHaveLength(30_000);
    expect(http.requests).toEqual([]);
  }, 60_000);

  it('--explain: each value, its normalized form and digest, or why it is rejected; all rejected is exit 2', async () => {
    ctx({ stdin: '(415) 555-2671\n12\n+44 20 7946 0958\n' });
    await audiencesHash(t.ctx, {
      file: '-',
      type: 'phone_number',
      defaultCountry: 'US',
      explain: true,
      format: 'auto',
    });
    expect(t.stdout().split('\n')).toEqual([
      'line\tcolumn\ttype\tinput\tnormalized\tsent',
      `1\tphone_number\tphone_number\t(415) 555-2671\t14155552671\t${sha('14155552671')}`,
      '2\tphone_number\tphone_number\t12\t\trejected: not a valid phone number',
      `3\tphone_number\tphone_number\t+44 20 7946 0958\t442079460958\t${sha('442079460958')}`,
      '',
    ]);
    t.cleanup();
    ctx({ stdin: 'nope\n' });
    const e = await failure(audiencesHash(t.ctx, { file: '-', type: 'email', format: 'auto' }));
    expect([e.exitCode, e.message]).toEqual([2, 'none of the 1 records could be used: every one was rejected']);
  }, 30_000);
});

describe('audiences inspect: flags -> options (runF)', () => {
  it('the file and the gate', async () => {
    ctx();
    expect(
      await t.optionsOf(registerInspect, ['inspect', 'f.csv', '--max-reject-rate', '0.5', '--lenient-quotes']),
    ).toEqual({
      file: 'f.csv',
      maxRejectRate: '0.5',
      lenientQuotes: true,
      format: 'auto',
      column: [],
      ignoreColumn: [],
    });
  });
});
