// `xctl audiences` management verbs tested where they live: the generated custom audience verbs
// (list, get, create, update, delete, targeted), `permissions`, `flexible create`, `estimate`,
// `do-not-reach` lists and `apply`'s flags: flags -> options (runF), the exact request sent, the
// exact output, and every refusal before anything is sent (exit 2, no request). What only the
// real sandbox proves (its state, its own refusals, signing) is in test/e2e/audiences.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { register as registerApply, type ApplyOptions } from '../../../src/commands/audiences/apply.js';
import { audiencesEstimate, register as registerEstimate } from '../../../src/commands/audiences/estimate.js';
import { flexibleCreate, register as registerFlexible } from '../../../src/commands/audiences/flexible/create.js';
import { failure } from '../../helpers/audiences.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { testContext, type TestContext, type TestContextOptions } from '../../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

const ADS = 'https://ads-api.x.com';
const CA = '/12/accounts/acct1/custom_audiences';
const BATCH = '/12/batch/accounts/acct1/custom_audiences';

function ctx(o: TestContextOptions = {}): { t: TestContext; http: HttpRegistry } {
  const http = o.transport instanceof HttpRegistry ? o.transport : new HttpRegistry();
  t = testContext({ ...o, transport: http });
  return { t, http };
}

/** `xctl ...argv` in-process: refused with exit 2 and the message, nothing sent. */
async function refused(argv: string[], message: RegExp | string, o: TestContextOptions = {}): Promise<void> {
  const { t: c, http } = ctx(o);
  const e = await failure(c.run(argv));
  expect([e.exitCode, e.message]).toEqual([2, expect.stringMatching(message)]);
  expect(http.requests).toEqual([]);
  t.cleanup();
}

/** An ads API error body as the service answers it. */
const adsError = (status: number, code: string, message: string, parameter?: string) =>
  json({ errors: [{ code, message, ...(parameter ? { parameter } : {}) }] }, status);

describe('audiences create|get|list|update|delete (generated)', () => {
  it('create sends name and description as the query; piped output is the row as tsv', async () => {
    const http = new HttpRegistry().register(
      route('POST', CA),
      json({ data: { id: 'ca1', name: 'Newsletter readers', description: 'from the CRM', audience_size: 0 } }),
    );
    ctx({ transport: http });
    await t.run(['audiences', 'create', '--name', 'Newsletter readers', '--description', 'from the CRM', '--json']);
    http.verify();
    expect(http.requests[0]!.url.toString()).toBe(`${ADS}${CA}`);
    expect(http.requests[0]!.body).toBe('name=Newsletter%20readers&description=from%20the%20CRM');
    expect(JSON.parse(t.stdout())).toMatchObject({ id: 'ca1', audience_size: 0 });
  });

  it('get -o tsv --fields prints exactly the fields asked', async () => {
    const http = new HttpRegistry().register(
      route('GET', `${CA}/ca1`),
      json({ data: { id: 'ca1', name: 'Newsletter readers', audience_size: 2, is_owner: true } }),
    );
    ctx({ transport: http });
    await t.run(['audiences', 'get', 'ca1', '-o', 'tsv', '--fields', 'name,audience_size']);
    expect(t.stdout()).toBe('Newsletter readers\t2\n');
  });

  it('list: --q, --count, --permission-scope, --with-deleted and --with-total-count reach the query', async () => {
    const http = new HttpRegistry().register(
      route('GET', CA),
      json({ data: [{ id: 'ca1', name: 'News' }], total_count: 5, next_cursor: null }),
    );
    ctx({ transport: http });
    await t.run([
      'audiences',
      'list',
      '--q',
      'news',
      '--count',
      '2',
      '--permission-scope',
      'SHARED',
      '--with-deleted',
      '--with-total-count',
      '--json',
    ]);
    expect(Object.fromEntries(http.requests[0]!.query)).toEqual({
      q: 'news',
      count: '2',
      permission_scope: 'SHARED',
      with_deleted: 'true',
      with_total_count: 'true',
    });
    expect(t.stderr()).toMatch(/total_count: 5/);
  });

  it('list --all follows next_cursor; --limit stops after n records', async () => {
    const page = (ids: string[], next: string | null) => json({ data: ids.map((id) => ({ id })), next_cursor: next });
    const http = new HttpRegistry()
      .register(route('GET', CA, { query: { count: '2' } }), page(['a1', 'a2'], 'c2'))
      .register(route('GET', CA, { query: { cursor: 'c2' } }), page(['a3', 'a4'], 'c3'))
      .register(route('GET', CA, { query: { cursor: 'c3' } }), page(['a5'], null));
    ctx({ transport: http });
    await t.run(['audiences', 'list', '--count', '2', '--all', '--json']);
    http.verify();
    expect(JSON.parse(t.stdout()).map((x: { id: string }) => x.id)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    t.cleanup();
    const h2 = new HttpRegistry()
      .register(route('GET', CA, { query: { count: '2' } }), page(['a1', 'a2'], 'c2'))
      .register(route('GET', CA, { query: { cursor: 'c2' } }), page(['a3', 'a4'], 'c3'));
    ctx({ transport: h2 });
    await t.run(['audiences', 'list', '--count', '2', '--limit', '3', '--json']);
    expect(JSON.parse(t.stdout())).toHaveLength(3);
  });

  it('refuses bad flags before sending (exit 2)', async () => {
    await refused(['audiences', 'create'], '--name is required');
    await refused(['audiences', 'create', '--name', ''], '--name must not be empty');
    await refused(
      ['audiences', 'list', '--permission-scope', 'ALL'],
      '--permission-scope must be one of OWNER, SHARED',
    );
    await refused(['audiences', 'list', '--q', 'x'.repeat(256)], '--q must be at most 255 characters');
    await refused(
      ['audiences', 'list', '--with-total-count', '--cursor', 'c-1'],
      '--with-total-count cannot be used together with --cursor',
    );
  });

  it('a duplicate name is the service error with its code and parameter (exit 1)', async () => {
    const http = new HttpRegistry().register(
      route('POST', CA),
      adsError(
        400,
        'INVALID_PARAMETER',
        'a custom audience named "x" already exists (ca1); names must be unique',
        'name',
      ),
    );
    ctx({ transport: http });
    const e = await failure(t.run(['audiences', 'create', '--name', 'x']));
    expect(e.exitCode).toBe(1);
    expect(e.message).toMatch(/already exists \(ca1\); names must be unique \(HTTP 400, code INVALID_PARAMETER/);
  });

  it('update of a flexible audience: refused (exit 2) after one GET, no PUT', async () => {
    const http = new HttpRegistry().register(
      route('GET', `${CA}/fx1`),
      json({ data: { id: 'fx1', name: 'Buyers', audience_type: 'FLEXIBLE' } }),
    );
    ctx({ transport: http, globals: { yes: true } });
    const e = await failure(t.run(['audiences', 'update', 'fx1', '--name', 'Renamed']));
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(
      'audiences update: custom audience fx1 ("Buyers") is a flexible audience; flexible audiences are immutable once created: create a new one with `xctl audiences flexible create` and delete the old one',
    );
    expect(http.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('delete by an account the audience is shared with: 403 becomes exit 1 with the owner in the hint', async () => {
    const http = new HttpRegistry()
      .register(
        route('DELETE', '/12/accounts/sis1/custom_audiences/ca1'),
        adsError(403, 'UNAUTHORIZED_ACCESS', 'only the owning account (acct1) may delete custom audience ca1'),
      )
      .register(
        route('GET', '/12/accounts/sis1/custom_audiences/ca1'),
        json({ data: { id: 'ca1', is_owner: false, account_id: 'acct1', permission_level: 'READ_ONLY' } }),
      );
    ctx({ transport: http, globals: { yes: true } });
    const e = await failure(t.run(['audiences', 'delete', 'ca1', '--account', 'sis1', '--yes']));
    expect(e.exitCode).toBe(1);
    expect(e.toJSON?.()).toMatchObject({ type: 'ApiError', status: 403, code: 'UNAUTHORIZED_ACCESS', exit_code: 1 });
    expect(e.hint).toBe(
      'custom audience ca1 is shared with account sis1, which does not own it (is_owner false): only the owning account (acct1) may delete it; run this with `--account acct1` as a user with access to it, or ask its owner',
    );
  });

  it('update by a READ_ONLY grantee: the hint says READ_WRITE is needed from the owner', async () => {
    const http = new HttpRegistry()
      .register(
        route('GET', '/12/accounts/sis1/custom_audiences/ca1'),
        json({ data: { id: 'ca1', is_owner: false, account_id: 'acct1', permission_level: 'READ_ONLY' } }),
        { times: 2 },
      )
      .register(
        route('PUT', '/12/accounts/sis1/custom_audiences/ca1'),
        adsError(403, 'UNAUTHORIZED_ACCESS', 'custom audience ca1 is shared with account sis1 as READ_ONLY'),
      );
    ctx({ transport: http });
    const e = await failure(t.run(['audiences', 'update', 'ca1', '--account', 'sis1', '--description', 'mine']));
    expect(e.exitCode).toBe(1);
    expect(e.hint).toMatch(
      /^custom audience ca1 is shared with account sis1 as READ_ONLY: changing it needs READ_WRITE/,
    );
    expect(e.hint).toContain('from the owning account (acct1)');
  });
});

describe('audiences targeted', () => {
  it('sends with_active=false for --no-with-active', async () => {
    const http = new HttpRegistry().register(route('GET', `${CA}/ca1/targeted`), json({ data: [] }));
    ctx({ transport: http });
    await t.run(['audiences', 'targeted', 'ca1', '--no-with-active', '--json']);
    http.verify();
    expect(http.requests[0]!.query.get('with_active')).toBe('false');
    expect(t.stdout()).toBe('[]\n');
  });
});

describe('audiences permissions', () => {
  const grant = ['audiences', 'permissions', 'grant', 'ca1', '--granted-account-id', 'sis1'];
  it('grant: POST /12 permissions, or /5 tailored ones with --tailored', async () => {
    const http = new HttpRegistry()
      .register(route('POST', `${CA}/ca1/permissions`), json({ data: { id: 'p1' } }))
      .register(route('POST', '/5/accounts/acct1/tailored_audiences/ca1/permissions'), json({ data: { id: 'p2' } }));
    ctx({ transport: http });
    await t.run([...grant, '--permission-level', 'READ_ONLY', '--json']);
    await t.run([...grant, '--permission-level', 'READ_WRITE', '--tailored', '--json']);
    http.verify();
    expect(http.requests.map((r) => `${r.method} ${r.path} ${r.form()}`)).toEqual([
      `POST ${CA}/ca1/permissions granted_account_id=sis1&permission_level=READ_ONLY`,
      'POST /5/accounts/acct1/tailored_audiences/ca1/permissions granted_account_id=sis1&permission_level=READ_WRITE',
    ]);
  });

  it('revoke by a grantee: 403 becomes exit 1 naming the owner ("revoke shares of")', async () => {
    const http = new HttpRegistry()
      .register(
        route('DELETE', '/12/accounts/sis1/custom_audiences/ca1/permissions/p1'),
        adsError(403, 'UNAUTHORIZED_ACCESS', 'only the owning account (acct1) may change permissions'),
      )
      .register(
        route('GET', '/12/accounts/sis1/custom_audiences/ca1'),
        json({ data: { id: 'ca1', is_owner: false, account_id: 'acct1' } }),
      );
    ctx({ transport: http });
    const e = await failure(t.run(['audiences', 'permissions', 'revoke', 'ca1', 'p1', '--account', 'sis1', '--yes']));
    expect(e.exitCode).toBe(1);
    expect(e.hint).toContain(
      'only the owning account (acct1) may revoke shares of it; run this with `--account acct1`',
    );
  });

  it('each variant refuses the flags of the other, and bad grants, before sending (exit 2)', async () => {
    await refused(
      ['audiences', 'permissions', 'list', 'ca1', '--tailored-audience-permission-ids', 'x1'],
      '--tailored-audience-permission-ids needs --tailored',
    );
    await refused(
      ['audiences', 'permissions', 'list', 'ca1', '--tailored', '--custom-audience-permission-ids', 'x1'],
      '--custom-audience-permission-ids cannot be used with --tailored',
    );
    await refused([...grant, '--permission-level', 'WRITE'], '--permission-level must be one of READ_ONLY, READ_WRITE');
    await refused(
      ['audiences', 'permissions', 'grant', 'ca1', '--permission-level', 'READ_ONLY'],
      '--granted-account-id is required',
    );
  });
});

describe('audiences flexible create', () => {
  const spec = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    child_segments: [{ custom_audience_id: 'ca1', negate: false, lookback_window: 30 }, { custom_audience_id: 'ca2' }],
    ...extra,
  });

  it('flags -> options (runF)', async () => {
    ctx();
    expect(await t.optionsOf(registerFlexible, ['create', '--file', 'f.json', '--dry-run'])).toEqual({
      file: 'f.json',
      dryRun: true,
    });
  });

  it('bare audiences become Create items of audience_type FLEXIBLE; a leaf without negate is warned of', async () => {
    const http = new HttpRegistry().register(
      route('POST', BATCH),
      json({ data: [{ id: 'fx1', name: 'Buyers not churned', audience_type: 'FLEXIBLE' }] }),
    );
    ctx({ transport: http, stdin: JSON.stringify(spec('Buyers not churned')) });
    await flexibleCreate(t.ctx, { file: '-' });
    expect(http.requests[0]!.json()).toEqual([
      { operation_type: 'Create', params: { audience_type: 'FLEXIBLE', ...spec('Buyers not churned') } },
    ]);
    expect(t.stderr()).toBe(
      'warning: item 1: child_segments[1] has no "negate": the spec\'s default is true, which EXCLUDES that audience; say "negate": false to include it\n',
    );
  });

  it('an Update item of a flexible audience: refused after one GET (exit 2), nothing sent', async () => {
    const http = new HttpRegistry().register(
      route('GET', `${CA}/fx1`),
      json({ data: { id: 'fx1', name: 'Buyers', audience_type: 'FLEXIBLE' } }),
    );
    ctx({
      transport: http,
      stdin: JSON.stringify([{ operation_type: 'Update', params: { custom_audience_id: 'fx1', name: 'R' } }]),
    });
    const e = await failure(flexibleCreate(t.ctx, { file: '-' }));
    expect([e.exitCode, e.message]).toEqual([
      2,
      expect.stringMatching(/^--file: item 1 \(Update\): custom audience fx1/),
    ]);
    expect(http.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('the batch refused as a whole: the item errors by position (exit 1)', async () => {
    const http = new HttpRegistry().register(
      route('POST', BATCH),
      json(
        {
          errors: [],
          operation_errors: [
            [],
            [{ code: 'INVALID_PARAMETER', message: 'segments: custom audience nosuch1 does not exist' }],
          ],
        },
        400,
      ),
    );
    ctx({ transport: http, stdin: JSON.stringify([spec('A'), spec('B')]) });
    const e = await failure(flexibleCreate(t.ctx, { file: '-' }));
    expect(e.exitCode).toBe(1);
    expect(e.message).toMatch(
      /the batch was refused as a whole \(nothing was applied\):\n\s+item 2: INVALID_PARAMETER segments: custom audience nosuch1 does not exist/,
    );
  });

  it('refuses before sending: 11 items, 11 leaves, lookback_window, boolean_operator, audience_type, bad JSON, Update of FLEXIBLE', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [Array.from({ length: 11 }, (_, i) => spec(`F${i}`)), /the batch must hold at most 10 items \(got 11\)/],
      [
        spec('Big', {
          child_segments: Array.from({ length: 11 }, () => ({ custom_audience_id: 'ca1', negate: false })),
        }),
        /item 1 \(Create\): child_segments and segments must hold at most 10 custom audiences \(leaf segments\), got 11/,
      ],
      [
        spec('Lb', { child_segments: [{ custom_audience_id: 'ca1', lookback_window: 3 }] }),
        /child_segments at \[0\]\.lookback_window: must be one of 1, 7, 14, 30/,
      ],
      [
        spec('NoOp', { segments: { child_segments: [{ custom_audience_id: 'ca1' }] } }),
        /segments at boolean_operator: is required when child_segments is non-empty/,
      ],
      [
        { name: 'RootOnly', segments: { boolean_operator: 'AND', child_segments: [{ custom_audience_id: 'ca1' }] } },
        /item 1 \(Create\): child_segments is required/,
      ],
      [spec('T', { audience_type: 'WEB' }), /audience_type must be one of FLEXIBLE, MOBILE_AUDIENCE/],
      ['{nope', /--file: the flexible audience spec is not valid JSON/],
      [
        [{ operation_type: 'Update', params: { custom_audience_id: 'fx1', audience_type: 'FLEXIBLE' } }],
        /item 1 \(Update\): flexible audiences are immutable/,
      ],
    ];
    for (const [body, message] of cases) {
      const { http } = ctx({ stdin: typeof body === 'string' ? body : JSON.stringify(body) });
      const e = await failure(flexibleCreate(t.ctx, { file: '-' }));
      expect([e.exitCode, e.message]).toEqual([2, expect.stringMatching(message)]);
      expect(http.requests).toEqual([]);
      t.cleanup();
    }
  });
});

describe('audiences estimate', () => {
  const keyword = { targeting_type: 'BROAD_KEYWORD', targeting_value: 'nba' };
  const location = { targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' };
  const EST = '/12/accounts/acct1/audience_estimate';

  it('flags -> options (runF); --targeting is required', async () => {
    ctx();
    expect(await t.optionsOf(registerEstimate, ['estimate', '--targeting', 't.json', '--operator', 'NE'])).toEqual({
      targeting: 't.json',
      operator: 'NE',
    });
    await refused(['audiences', 'estimate'], "required option '--targeting <file>' not specified");
  });

  it('an array is sent as targeting_criteria, with operator_type NE; piped tsv is min and max', async () => {
    const http = new HttpRegistry().register(
      route('POST', EST),
      json({ data: { audience_size: { min: 1200, max: 1500 } } }),
    );
    ctx({ transport: http, stdin: JSON.stringify([keyword, location]) });
    await t.run(['audiences', 'estimate', '--targeting', '-', '--operator', 'NE', '-o', 'tsv']);
    expect(http.requests[0]!.json()).toEqual({ targeting_criteria: [keyword, location], operator_type: 'NE' });
    expect(t.stdout()).toBe('1200\t1500\n');
  });

  it('{"targeting_criteria": [...]} is sent as it is', async () => {
    const http = new HttpRegistry().register(route('POST', EST), json({ data: { audience_size: { min: 1, max: 2 } } }));
    ctx({ transport: http, stdin: JSON.stringify({ targeting_criteria: [keyword] }) });
    await audiencesEstimate(t.ctx, { targeting: '-' });
    expect(http.requests[0]!.json()).toEqual({ targeting_criteria: [keyword] });
  });

  it('refuses before sending: no primary criterion, empty, an operator not EQ/NE, no targeting_criteria', async () => {
    const cases: Array<[unknown, string | undefined, RegExp]> = [
      [[location], undefined, /--targeting: targeting_criteria needs at least one primary criterion/],
      [[], undefined, /non-empty array/],
      [[keyword], 'GT', /--operator must be one of EQ, NE/],
      [{}, undefined, /targeting_criteria is required/],
    ];
    for (const [body, operator, message] of cases) {
      const { http } = ctx({ stdin: JSON.stringify(body) });
      const e = await failure(audiencesEstimate(t.ctx, { targeting: '-', operator }));
      expect([e.exitCode, e.message]).toEqual([2, expect.stringMatching(message)]);
      expect(http.requests).toEqual([]);
      t.cleanup();
    }
  });
});

describe('audiences do-not-reach create|list|delete (generated)', () => {
  it('create sends the description; a second list is the service error (exit 1)', async () => {
    const DNR = '/12/accounts/acct1/do_not_reach_lists';
    const http = new HttpRegistry()
      .register(route('POST', DNR), json({ data: { id: 'd1', description: 'opted out' } }))
      .register(
        route('POST', DNR),
        adsError(
          400,
          'INVALID_PARAMETER',
          'account acct1 already has do-not-reach list d1; an account has at most one',
        ),
      );
    ctx({ transport: http });
    await t.run(['audiences', 'do-not-reach', 'create', '--description', 'opted out', '--json']);
    expect(http.requests[0]!.form().get('description')).toBe('opted out');
    const e = await failure(t.run(['audiences', 'do-not-reach', 'create']));
    expect(e.exitCode).toBe(1);
    expect(e.message).toMatch(/already has do-not-reach list d1/);
  });
});

describe('audiences apply: flags and what is refused before reading', () => {
  it('flags -> options (runF): defaults, repeatable --only', async () => {
    ctx();
    const got = await t.optionsOf<ApplyOptions>(registerApply, [
      'apply',
      '-f',
      'a.yaml',
      '--plan',
      '--only',
      'A',
      '--only',
      'B',
      '--max-removes',
      '5%',
    ]);
    expect(got).toEqual({
      file: 'a.yaml',
      plan: true,
      only: ['A', 'B'],
      maxRemoves: '5%',
      batchSize: '2500',
      concurrency: '4',
    });
  });

  it('refuses without -f, --prune with --only, a bad --batch-size (exit 2, nothing sent)', async () => {
    await refused(['audiences', 'apply'], '-f FILE is required');
    await refused(['audiences', 'apply', '-f', 'a.yaml', '--prune', '--only', 'A'], '--prune and --only are exclusive');
    await refused(['audiences', 'apply', '-f', 'a.yaml', '--batch-size', '0'], '--batch-size must be a whole number');
  });

  it('--only a name the file lacks: exit 2 naming it, nothing sent', async () => {
    const { t: c, http } = ctx();
    const fs = await import('node:fs');
    const path = await import('node:path');
    const file = path.join(c.configDir, 'audiences.yaml');
    fs.writeFileSync(
      file,
      'defaults:\n  account: acct1\n  type: email\naudiences:\n  - name: Newsletter\n    source: n.csv\n',
    );
    const e = await failure(c.run(['audiences', 'apply', '-f', file, '--only', 'Newsleter']));
    expect([e.exitCode, e.message]).toEqual([2, `--only: ${file} lists no audience named "Newsleter"`]);
    expect(http.requests).toEqual([]);
  });

  it('--schema prints the JSON Schema of the file (no credentials needed)', async () => {
    ctx({ env: { XCTL_API_KEY: undefined } });
    await t.run(['audiences', 'apply', '--schema']);
    const s = JSON.parse(t.stdout()) as { $schema: string; required: string[] };
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(s.required).toEqual(['audiences']);
  });
});
