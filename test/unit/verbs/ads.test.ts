// `xctl ads ...` tested where the verbs live (issue 27 item 3). The generated verbs, table-driven
// over the ads table: flags -> options through runF, the request each verb sends, --dry-run of
// every write; then exact piped and TTY output of a few lists and gets, the stats job verbs, and
// every refusal that used to spawn the CLI against a sandbox (exit 2, nothing sent).
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../../src/ads/resources.js';
import type { OperationDef, ParamDef, ResourceDef } from '../../../src/ads/resource-types.js';
import { sampleValue } from '../../../src/commands/ads/example-values.js';
import { addOperation } from '../../../src/commands/ads/generate.js';
import { positionalsOf, type OperationOptions } from '../../../src/commands/ads/run.js';
import { HttpRegistry, json, route, text } from '../../helpers/http-registry.js';
import { FakeClock, TEST_NOW, useTestContexts } from '../../helpers/test-context.js';
import { isoSeconds, parseRelativeTime } from '../../../src/contract/time.js';
import { exitCodeOf, refusal } from '../../helpers/ads.js';

const tc = useTestContexts();
/** A local sandbox's base URL: SANDBOX-only verbs are not refused (the registry answers anyway). */
const SANDBOX_ENV = { XCTL_BASE_URL: 'http://127.0.0.1:9' };

interface Case {
  r: ResourceDef;
  op: OperationDef;
  /** `ads stats job create` -> ['stats', 'job', 'create'] */
  words: string[];
}
const CASES: Case[] = RESOURCES.filter((r) => r.home !== 'audiences').flatMap((r) =>
  r.operations.map((op) => ({ r, op, words: [...(r.group ? [r.group] : []), r.noun, op.verb] })),
);
const name = (c: Case) => `${c.words.join(' ')} (${c.op.method} ${c.op.path})`;
/** The sample as sent: unquoted; a relative time (`today-6d`) as the ISO time it stands for. */
const sample = (key: string, d?: ParamDef) => {
  const v = sampleValue(key, d).replace(/^"(.*)"$/, '$1');
  const rel = d?.kind === 'time' ? parseRelativeTime(v, TEST_NOW) : undefined;
  return rel === undefined ? v : isoSeconds(rel);
};
/** Flags beyond the required ones a verb's cross-field rules ask for, by its words. */
const EXTRA: Record<string, Record<string, string>> = {
  'line-items create': { ios_app_store_identifier: '333903271' },
  'stats query': { entity: 'LINE_ITEM' },
  'stats job create': { entity: 'LINE_ITEM' },
  'conversation-cards create': { title: 'Pick one', media_key: '13_1000000000000000014' },
  'drafts create': { text: 'Hello' },
  'scheduled create': { text: 'Hello' },
  'tweets create': { text: 'Hello' },
};
/** Flag-bodied verbs: their required flags with the help's sample values (and EXTRA), by spec name. */
function paramsOf(c: Case): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of c.op.params.filter((p) => p.required)) out[d.name] = d.kind === 'bool' ? 'true' : sample(d.name, d);
  return { ...out, ...EXTRA[c.words.join(' ')] };
}
function flagsOf(c: Case): string[] {
  return Object.entries(paramsOf(c)).flatMap(([n, v]) => {
    const d = c.op.params.find((p) => p.name === n)!;
    return d.kind === 'bool' ? [d.flag] : [d.flag, v];
  });
}
/** The positionals a verb needs (the own account id is optional: --account or XCTL_ACCOUNT_ID). */
function positionals(c: Case): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of positionalsOf(c.r, c.op)) if (!p.optional) out[p.key] = sample(p.key);
  return out;
}
/** The path the verb must request: its version, the test context's account, the positionals. */
function pathOf(c: Case): string {
  let p = c.op.path.replace(':account_id', 'acct1');
  for (const [k, v] of Object.entries(positionals(c))) p = p.replace(`:${k}`, v);
  return `/${c.op.version ?? '12'}${p}`;
}
const flagBodied = CASES.filter((c) => c.op.body !== 'json' && c.op.kind !== 'batch');
const asksFirst = (op: OperationDef) => op.std === 'delete' && op.verb !== 'cancel';

describe('generated verbs: flags -> options (runF), every operation of the table', () => {
  it('covers every ads operation', () => expect(CASES.length).toBeGreaterThan(120));

  it.each(flagBodied.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    const t = tc();
    const o = await t.optionsOf<OperationOptions>(
      (parent, runF) => addOperation(parent, c.r, c.op, {}, runF),
      [c.op.verb, ...Object.values(positionals(c)), ...flagsOf(c)],
    );
    const path: Record<string, string | undefined> = positionals(c);
    for (const p of positionalsOf(c.r, c.op)) if (p.optional) path[p.key] = undefined;
    expect(o).toEqual({ params: paramsOf(c), money: {}, path });
  });

  it.each(CASES.filter((c) => c.op.body === 'json' || c.op.kind === 'batch').map((c) => [name(c), c] as const))(
    '%s: --file',
    async (_n, c) => {
      const t = tc();
      const o = await t.optionsOf<OperationOptions>(
        (parent, runF) => addOperation(parent, c.r, c.op, {}, runF),
        [c.op.verb, ...Object.values(positionals(c)), '--file', 'body.json', '--dry-run'],
      );
      expect(o).toMatchObject({ params: {}, file: 'body.json', dryRun: true });
    },
  );

  const byWords = (w: string) => CASES.find((c) => c.words.join(' ') === w)!;
  const opts = (c: Case, argv: string[]) =>
    tc().optionsOf<OperationOptions>((parent, runF) => addOperation(parent, c.r, c.op, {}, runF), argv);

  it('--no-x sends false, a bare boolean true; --all, --limit, --dry-run, --if-exists; money twins', async () => {
    const list = byWords('campaigns list');
    expect(await opts(list, ['list', '--with-deleted', '--no-with-draft', '--all', '--limit', '5'])).toEqual({
      params: { with_deleted: 'true', with_draft: 'false' },
      money: {},
      path: {},
      all: true,
      limit: '5',
    });
    const create = byWords('campaigns create');
    expect(
      await opts(create, ['create', '--name', 'N', '--daily-budget', '30.50', '--if-exists', 'return', '--dry-run']),
    ).toEqual({
      params: { name: 'N' },
      money: { daily_budget_amount_local_micro: '30.50' },
      path: {},
      dryRun: true,
      ifExists: 'return',
    });
    expect(await opts(byWords('accounts get'), ['get', 'a9'])).toMatchObject({ path: { account_id: 'a9' } });
  });

  it('usage errors of commander: an unknown flag, a missing positional, a bad --if-exists', async () => {
    const get = byWords('campaigns get');
    await expect(opts(get, ['get', '8wku2', '--colour', 'red'])).rejects.toMatchObject({
      code: 'commander.unknownOption',
    });
    await expect(opts(get, ['get'])).rejects.toMatchObject({ code: 'commander.missingArgument' });
    await expect(
      opts(byWords('campaigns create'), ['create', '--name', 'N', '--if-exists', 'maybe']),
    ).rejects.toMatchObject({ code: 'commander.invalidArgument' });
  });
});

/** The answer a stub gives each verb: a list, a record, or the stats envelope. */
function answerFor(op: OperationDef): unknown {
  if (op.output === 'stats') return { data: [], time_series_length: 1, request: { params: {} } };
  return { data: op.kind === 'list' ? [] : { id: 'x1' } };
}

describe('generated verbs: the request each one sends (the whole tree in-process)', () => {
  it.each(flagBodied.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    const http = new HttpRegistry().register(route(c.op.method, pathOf(c)), json(answerFor(c.op)));
    const t = tc({ transport: http, env: SANDBOX_ENV });
    const argv = ['ads', ...c.words, ...Object.values(positionals(c)), ...flagsOf(c)];
    await t.run([...argv, ...(asksFirst(c.op) ? ['--yes'] : [])]);
    http.verify();
    expect(http.requests).toHaveLength(1);
    const req = http.requests[0]!;
    const sent = c.op.method === 'GET' || c.op.method === 'DELETE' ? req.query : req.form();
    const got = Object.fromEntries(sent.entries());
    expect(got).toMatchObject(paramsOf(c));
    expect(req.headers.authorization).toMatch(/^OAuth oauth_consumer_key="test-api-key"/);
  });

  it('a SANDBOX-only verb toward the platform is refused before sending', async () => {
    const c = CASES.find((x) => x.op.sandboxOnly && x.op.params.every((p) => !p.required))!;
    const err = await refusal(tc, ['ads', ...c.words, ...Object.values(positionals(c))], { env: {} });
    expect(err).toMatch(/exists only on the ads sandbox/);
  });
});

describe('generated writes: --dry-run prints the request and sends nothing', () => {
  const writes = flagBodied.filter((c) => c.op.method !== 'GET');
  it.each(writes.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    const http = new HttpRegistry();
    const t = tc({ transport: http, env: SANDBOX_ENV });
    await t.run(['ads', ...c.words, ...Object.values(positionals(c)), ...flagsOf(c), '--dry-run']);
    expect(http.requests).toEqual([]);
    const line = JSON.parse(t.stdout()) as { dry_run: boolean; method: string; url: string };
    expect(line).toMatchObject({ dry_run: true, method: c.op.method });
    expect(new URL(line.url).pathname).toBe(pathOf(c));
    expect(t.stderr()).toBe('dry run: nothing was sent\n');
  });
});

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const FI = 'lygyi';
const LI = '8v7jo';
const ME = '756201191646691328';
const WIDE = '3_1000000000000000011';
const GIF = '16_1000000000000000013';
const VIDEO = '13_1000000000000000014';
const engage = ['ads', 'line-items', 'create', '--campaign-id', '8wku2', '--objective', 'ENGAGEMENTS'];
const engageTl = [...engage, '--product-type', 'PROMOTED_TWEETS', '--placements', 'ALL_ON_TWITTER'];
const stats = (...more: string[]) => ['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', LI, ...more];
const job = ['ads', 'stats', 'job', 'create', '--entity', 'LINE_ITEM', '--ids', LI];
const may = ['--start', '2026-05-01', '--end', '2026-05-02'];
const add = (type: string, value: string, ...more: string[]) => [
  ...['ads', 'targeting', 'add', '--line-item-id', LI, '--targeting-type', type, '--targeting-value', value],
  ...more,
];
const conv = ['ads', 'conversation-cards', 'create', '--name', 'Conv', '--first-cta', '#Yes'];
const convBase = [...conv, '--first-cta-tweet', 'I say yes', '--thank-you-text', 'Thanks!', '--media-key', VIDEO];
const poll = ['ads', 'polls', 'create', '--name', 'p', '--duration-in-minutes', '5', '--first-choice', 'a'];
const website = { type: 'DETAILS', title: 'Shop', destination: { type: 'WEBSITE', url: 'https://example.com' } };
const appButton = { type: 'BUTTON', label: { type: 'ENUM', value: 'INSTALL' } };
const ids = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`).join(',');
const batch = (n: number, item: unknown) => JSON.stringify(Array(n).fill(item));

/** [argv, the words of the refusal, stdin]: each was an e2e run against a sandbox (issue 27 item 3). */
const REFUSED: Array<[string, string[], RegExp, string?]> = [
  // accounts, reference data, settings (ads-accounts.test.ts)
  [
    'add-features: an unknown key',
    ['ads', 'accounts', 'add-features', '--feature-keys', 'TELEPORT'],
    /--feature-keys entry "TELEPORT" must be one of AGE_TARGETING/,
  ],
  ['add-features: none', ['ads', 'accounts', 'add-features'], /--feature-keys is required/],
  [
    'history: not a whole hour',
    [
      'ads',
      'accounts',
      'history',
      '--entity-type',
      'CAMPAIGN',
      '--entity-id',
      'c1',
      '--start-time',
      '2026-01-01T00:30:00Z',
      '--end-time',
      '2026-01-02T00:00:00Z',
    ],
    /--start-time must be a whole hour/,
  ],
  [
    'history: AD_GROUP',
    [
      'ads',
      'accounts',
      'history',
      '--entity-type',
      'AD_GROUP',
      '--entity-id',
      'c1',
      '--start-time',
      '2026-01-01T00:00:00Z',
      '--end-time',
      '2026-01-02T00:00:00Z',
    ],
    /--entity-type must be one of/,
  ],
  ['bidding rules: euro', ['ads', 'ref', 'bidding-rules', '--currency', 'euro'], /--currency/],
  ['placements: VIDEO', ['ads', 'ref', 'placements', '--product-type', 'VIDEO'], /--product-type must be one of/],
  ['curated categories: USA', ['ads', 'ref', 'curated-categories', '--country-codes', 'USA'], /--country-codes/],
  ['curated categories: none', ['ads', 'ref', 'curated-categories'], /--country-codes is required/],
  ['tax: COMPANY', ['ads', 'settings', 'tax', 'update', '--tax-category', 'COMPANY'], /--tax-category must be one/],
  [
    'user settings: an email',
    ['ads', 'settings', 'user', 'update', ME, '--notification-email', 'not-an-email'],
    /--notification-email/,
  ],
  [
    'keyword insights: 11 keywords',
    [
      'ads',
      'ref',
      'keyword-insights',
      '--granularity',
      'DAY',
      '--keywords',
      'a,b,c,d,e,f',
      '--negative-keywords',
      'g,h,i,j,k',
      '--start-time',
      iso(TEST_NOW - 3 * 86_400_000),
    ],
    /--keywords must be at most 10 combined with --negative-keywords \(got 11\)/,
  ],
  [
    'keyword insights: WEEK',
    [
      'ads',
      'ref',
      'keyword-insights',
      '--granularity',
      'WEEK',
      '--keywords',
      'a',
      '--start-time',
      iso(TEST_NOW - 3 * 86_400_000),
    ],
    /--granularity must be one of/,
  ],
  // campaigns (ads-campaigns.test.ts)
  ['campaign without a name', ['ads', 'campaigns', 'create', '--funding-instrument-id', FI], /--name is required/],
  [
    'campaign name 256',
    ['ads', 'campaigns', 'create', '--name', 'x'.repeat(256), '--funding-instrument-id', FI],
    /--name must be at most 255 characters/,
  ],
  [
    'purchase order 51',
    [
      'ads',
      'campaigns',
      'create',
      '--name',
      'x',
      '--funding-instrument-id',
      FI,
      '--purchase-order-number',
      'p'.repeat(51),
    ],
    /--purchase-order-number must be at most 50/,
  ],
  [
    'daily over total',
    [
      'ads',
      'campaigns',
      'create',
      '--name',
      'x',
      '--funding-instrument-id',
      FI,
      '--daily-budget-amount-local-micro',
      '9',
      '--total-budget-amount-local-micro',
      '8',
    ],
    /--daily-budget-amount-local-micro must be at most --total-budget-amount-local-micro/,
  ],
  [
    'update to DRAFT',
    ['ads', 'campaigns', 'update', 'abc', '--entity-status', 'DRAFT'],
    /--entity-status must be one of ACTIVE, PAUSED/,
  ],
  ['count 1001', ['ads', 'campaigns', 'list', '--count', '1001'], /--count must be between 1 and 1000 \(got "1001"\)/],
  [
    'total count with a cursor',
    ['ads', 'campaigns', 'list', '--with-total-count', '--cursor', 'c-1'],
    /--with-total-count cannot be used together with --cursor/,
  ],
  [
    '201 campaign ids',
    ['ads', 'campaigns', 'list', '--campaign-ids', ids(201, 'c')],
    /--campaign-ids must list at most 200 entries/,
  ],
  ['an id with a space', ['ads', 'campaigns', 'get', 'bad id'], /<campaign-id> must be an id/],
  [
    'batch: item 2 without its id',
    ['ads', 'campaigns', 'batch', '--file', '-'],
    /item 2 \(Update\): campaign_id is required/,
    JSON.stringify([
      { operation_type: 'Create', params: { name: 'ok', funding_instrument_id: FI } },
      { operation_type: 'Update', params: { name: 'n' } },
    ]),
  ],
  [
    'batch: 41 items',
    ['ads', 'campaigns', 'batch', '--file', '-'],
    /at most 40 items \(got 41\)/,
    batch(41, { operation_type: 'Delete', params: { campaign_id: 'x' } }),
  ],
  ['batch: bad JSON', ['ads', 'campaigns', 'batch', '--file', '-'], /not valid JSON/, '[{'],
  ['batch: no --file', ['ads', 'campaigns', 'batch'], /--file is required/],
  // line items (ads-line-items.test.ts)
  ['no placements', [...engage, '--product-type', 'PROMOTED_TWEETS'], /--placements is required/],
  [
    'TWITTER_PROFILE alone',
    [...engage, '--product-type', 'PROMOTED_TWEETS', '--placements', 'TWITTER_PROFILE'],
    /--placements cannot be TWITTER_PROFILE alone/,
  ],
  [
    'REACH on search',
    [
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      'c',
      '--objective',
      'REACH',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'TWITTER_SEARCH',
    ],
    /must include TWITTER_TIMELINE/,
  ],
  [
    'MAX without a bid',
    [...engageTl, '--bid-strategy', 'MAX'],
    /--bid-amount-local-micro is required when --bid-strategy is MAX/,
  ],
  [
    'MAX for FOLLOWERS',
    [
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      'c',
      '--objective',
      'FOLLOWERS',
      '--product-type',
      'PROMOTED_ACCOUNT',
      '--placements',
      'ALL_ON_TWITTER',
      '--bid-strategy',
      'MAX',
      '--bid-amount-local-micro',
      '1',
    ],
    /MAX is not available for --objective FOLLOWERS/,
  ],
  [
    'goal of another objective',
    [...engageTl, '--goal', 'SITE_VISITS'],
    /--goal SITE_VISITS is only for --objective WEBSITE_CLICKS/,
  ],
  ['frequency cap alone', [...engageTl, '--frequency-cap', '3'], /--frequency-cap needs --duration-in-days/],
  [
    'end before start',
    [...engageTl, '--start-time', '2026-05-20', '--end-time', '2026-05-19'],
    /--end-time must be after --start-time/,
  ],
  [
    '2 days',
    [...engageTl, '--duration-in-days', '2', '--frequency-cap', '3'],
    /--duration-in-days must be one of 1, 7, 30/,
  ],
  ['pay by link click', [...engageTl, '--pay-by', 'LINK_CLICK'], /--pay-by cannot be set for --goal ENGAGEMENT/],
  [
    'LEAD_GENERATION',
    [
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      'c',
      '--objective',
      'LEAD_GENERATION',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'ALL_ON_TWITTER',
    ],
    /--objective must be one of/,
  ],
  [
    'line item batch: 41',
    ['ads', 'line-items', 'batch', '--file', '-'],
    /at most 40 items/,
    batch(41, { operation_type: 'Delete', params: { line_item_id: 'x' } }),
  ],
  // targeting (ads-targeting.test.ts, ads-attachments.test.ts)
  ['events without types', ['ads', 'targeting-options', 'events'], /--event-types is required/],
  ['tv shows without a locale', ['ads', 'targeting-options', 'tv-shows'], /--locale is required/],
  [
    'PLANETS',
    ['ads', 'targeting-options', 'locations', '--location-type', 'PLANETS'],
    /--location-type must be one of COUNTRIES/,
  ],
  [
    'tv shows: count 51',
    ['ads', 'targeting-options', 'tv-shows', '--locale', 'en-US', '--count', '51'],
    /--count must be between 1 and 50/,
  ],
  ['AGE_99', add('AGE', 'AGE_99'), /--targeting-value must be an age bucket/],
  ['gender 3', add('GENDER', '3'), /--targeting-value must be 1 \(male\) or 2 \(female\)/],
  ['not a type', add('NOT_A_TYPE', 'x'), /--targeting-type must be a targeting type/],
  [
    'activation without GTE',
    add('NETWORK_ACTIVATION_DURATION', '6'),
    /--operator-type must be GTE or LT for NETWORK_ACTIVATION_DURATION/,
  ],
  [
    'GTE on a location',
    add('LOCATION', '96683cc9126741d1', '--operator-type', 'GTE'),
    /GTE is only for NETWORK_ACTIVATION_DURATION/,
  ],
  ['APP_LIST without NE', add('APP_LIST', 'al1'), /must be NE for APP_LIST/],
  ['criteria without line items', ['ads', 'targeting', 'list'], /--line-item-ids is required/],
  [
    'targeting batch: 501',
    ['ads', 'targeting', 'batch', '--file', '-'],
    /at most 500 items/,
    batch(501, { operation_type: 'Delete', params: { targeting_criterion_id: 'x' } }),
  ],
  [
    'targeting batch: Update',
    ['ads', 'targeting', 'batch', '--file', '-'],
    /operation_type must be one of Create, Delete/,
    JSON.stringify([{ operation_type: 'Update', params: {} }]),
  ],
  // attachments (ads-attachments.test.ts)
  [
    'a handle for a user id',
    ['ads', 'promoted-accounts', 'create', '--line-item-id', LI, '--user-id', '@alice'],
    /--user-id/,
  ],
  [
    '51 posts',
    ['ads', 'promoted-tweets', 'create', '--line-item-id', LI, '--tweet-ids', ids(51, '144000000000000')],
    /--tweet-ids must list at most 50 entries \(got 51\)/,
  ],
  [
    'a landing URL without a scheme',
    [
      'ads',
      'media-creatives',
      'create',
      '--account-media-id',
      'm1',
      '--line-item-id',
      LI,
      '--landing-url',
      'shop.example',
    ],
    /--landing-url/,
  ],
  ['a tracking tag update of nothing', ['ads', 'tracking-tags', 'update', 't1'], /--tracking-tag-url/],
  [
    'PIXEL',
    [
      'ads',
      'tracking-tags',
      'create',
      '--line-item-id',
      LI,
      '--tracking-tag-type',
      'PIXEL',
      '--tracking-tag-url',
      'https://t.example',
    ],
    /--tracking-tag-type must be one of/,
  ],
  // creatives (ads-creatives.test.ts, ads-creatives-lifecycle.test.ts)
  [
    'BILLBOARD',
    ['ads', 'account-media', 'list', '--creative-types', 'BILLBOARD'],
    /--creative-types entry "BILLBOARD"/,
  ],
  [
    'library title 71',
    ['ads', 'media-library', 'update', VIDEO, '--title', 't'.repeat(71)],
    /--title must be at most 70 characters/,
  ],
  [
    'a title on an image',
    ['ads', 'media-library', 'add', '--media-key', '3_777', '--title', 'x'],
    /--title applies to videos only/,
  ],
  [
    'card: no DETAILS',
    ['ads', 'cards', 'create', '--file', '-'],
    /--file.*one DETAILS or one BUTTON/s,
    JSON.stringify({ name: 'x', components: [{ type: 'MEDIA', media_key: WIDE }] }),
  ],
  [
    'card: country XX',
    ['ads', 'cards', 'create', '--file', '-'],
    /--file.*ISO 3166-1 alpha-2/s,
    JSON.stringify({
      name: 'x',
      components: [
        { type: 'MEDIA', media_key: WIDE },
        { ...appButton, destination: { type: 'APP', country_code: 'XX', googleplay_app_id: 'a' } },
      ],
    }),
  ],
  [
    'card: a carousel of one',
    ['ads', 'cards', 'create', '--file', '-'],
    /--file.*2 to 6 entries \(got 1\)/s,
    JSON.stringify({ name: 'x', components: [{ type: 'SWIPEABLE_MEDIA', media_keys: [WIDE] }, website] }),
  ],
  [
    'card: name 81',
    ['ads', 'cards', 'create', '--file', '-'],
    /--file.*name must be at most 80 characters/s,
    JSON.stringify({ name: 'x'.repeat(81), components: [{ type: 'MEDIA', media_key: WIDE }, website] }),
  ],
  ['cards: q 81', ['ads', 'cards', 'list', '--q', 'q'.repeat(81)], /--q/],
  [
    'draft: a GIF with an image',
    ['ads', 'drafts', 'create', '--as-user-id', ME, '--media-keys', `${WIDE},${GIF}`],
    /up to 4 images, or 1 animated GIF, or 1 video/,
  ],
  [
    'draft: no text',
    ['ads', 'drafts', 'create', '--as-user-id', ME, '--name', 'n'],
    /--text is required when --media-keys is not given/,
  ],
  ['previews: abc', ['ads', 'previews', 'list', '--tweet-ids', 'abc', '--tweet-type', 'DRAFT'], /--tweet-ids/],
  [
    'preroll: BUY',
    [
      'ads',
      'preroll-ctas',
      'create',
      '--line-item-id',
      LI,
      '--call-to-action',
      'BUY',
      '--call-to-action-url',
      'https://e.com',
    ],
    /--call-to-action must be one of/,
  ],
  ['conversation: title 24', [...convBase, '--title', 't'.repeat(24)], /--title must be at most 23/],
  ['conversation: no title, no second CTA', convBase, /--second-cta is required when --title is not set/],
  [
    'conversation: second CTA alone',
    [...convBase, '--second-cta', '#No'],
    /--second-cta-tweet is required when --second-cta is set/,
  ],
  [
    'conversation: CTA 21',
    [...convBase, '--title', 't', '--first-cta', `#${'a'.repeat(21)}`],
    /--first-cta must be at most 20 characters, not counting #/,
  ],
  [
    'scheduled: a year and a day',
    [
      'ads',
      'scheduled',
      'create',
      '--as-user-id',
      ME,
      '--text',
      'x',
      '--scheduled-at',
      iso(TEST_NOW + 366 * 86_400_000),
    ],
    /--scheduled-at must be at most one year ahead/,
  ],
  [
    'scheduled: tomorrow',
    ['ads', 'scheduled', 'create', '--as-user-id', ME, '--text', 'x', '--scheduled-at', 'tomorrow'],
    /--scheduled-at/,
  ],
  ['poll: choice 26', [...poll, '--second-choice', 'b'.repeat(26)], /--second-choice must be at most 25/],
  [
    'poll: a fourth without a third',
    [...poll, '--second-choice', 'b', '--fourth-choice', 'd'],
    /--fourth-choice needs .*missing --third-choice/,
  ],
  [
    'poll: 4 minutes',
    [
      'ads',
      'polls',
      'create',
      '--name',
      'p',
      '--duration-in-minutes',
      '4',
      '--first-choice',
      'a',
      '--second-choice',
      'b',
    ],
    /between 5 and 10080/,
  ],
  // stats (ads-stats.test.ts)
  [
    '21 ids',
    ['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', ids(21, 'li'), ...may],
    /--ids must list at most 20 entries \(got 21\)/,
  ],
  ['end before start', stats('--start', '2026-05-02', '--end', '2026-05-01'), /--end must be after --start/],
  ['8 days', stats('--start', '2026-05-01', '--end', '2026-05-09'), /--end must be at most 7 days after --start/],
  ['half past', stats('--start', '2026-05-01T10:30:00Z', '--end', '2026-05-02T00:00:00Z'), /--start .*whole hour/],
  ['MEDIA', stats(...may, '--metric-groups', 'MEDIA'), /--metric-groups entry "MEDIA" must be one of BILLING/],
  [
    'BILLING of an account',
    ['ads', 'stats', '--entity', 'ACCOUNT', '--ids', LI, ...may, '--metric-groups', 'ENGAGEMENT,BILLING'],
    /BILLING is not available for --entity ACCOUNT/,
  ],
  ['no start', stats('--end', '2026-05-02'), /--start is required/],
  [
    'active entities: ORGANIC_TWEET',
    [
      'ads',
      'stats',
      'active-entities',
      '--entity',
      'ORGANIC_TWEET',
      '--start-time',
      '2026-05-01T00:00:00Z',
      '--end-time',
      '2026-05-02T00:00:00Z',
    ],
    /--entity must be one of/,
  ],
  [
    'active entities: campaigns and line items',
    [
      'ads',
      'stats',
      'active-entities',
      '--entity',
      'LINE_ITEM',
      '--start-time',
      '2026-05-01T00:00:00Z',
      '--end-time',
      '2026-05-02T00:00:00Z',
      '--campaign-ids',
      'c1',
      '--line-item-ids',
      LI,
    ],
    /cannot be used together/,
  ],
  [
    'job: 91 days',
    [...job, '--start', '2026-01-01', '--end', '2026-04-02'],
    /--end must be at most 90 days after --start/,
  ],
  [
    'job: 46 days segmented',
    [...job, '--start', '2026-01-01', '--end', '2026-02-16', '--segmentation-type', 'AGE'],
    /--end must be at most 45 days after --start \(segmented\)/,
  ],
  [
    'job: METROS without a country',
    [...job, '--start', '2026-01-01', '--end', '2026-01-02', '--segmentation-type', 'METROS'],
    /--country is required with --segmentation-type METROS/,
  ],
  [
    'job: CONVERSION_TAGS',
    [...job, '--start', '2026-01-01', '--end', '2026-01-02', '--segmentation-type', 'CONVERSION_TAGS'],
    /CONVERSION_TAGS is only for --metric-groups WEB_CONVERSION/,
  ],
  [
    'job: LANGUAGES',
    [...job, '--start', '2026-01-01', '--end', '2026-01-02', '--segmentation-type', 'LANGUAGES'],
    /--segmentation-type must be one of AGE/,
  ],
  ['job get: abc', ['ads', 'stats', 'job', 'get', 'abc'], /<job-id> must be the job's id_str/],
];

describe('refused before sending: exit 2 naming the flag and the rule, nothing sent', () => {
  it.each(REFUSED)('%s', async (_n, argv, words, stdin) => {
    expect(await refusal(tc, argv, { stdin })).toMatch(words);
  });

  it('90 days exactly, 20 characters of CTA after the #, 6 months GTE: accepted (dry run)', async () => {
    for (const argv of [
      [...job, '--start', '2026-01-01', '--end', '2026-04-01'],
      [...convBase, '--title', 't'.repeat(23), '--first-cta', `#${'a'.repeat(20)}`],
      add('NETWORK_ACTIVATION_DURATION', '6', '--operator-type', 'GTE'),
    ]) {
      const t = tc({ transport: new HttpRegistry(), env: SANDBOX_ENV });
      await t.run([...argv, '--dry-run']);
      expect(t.stderr()).toBe('dry run: nothing was sent\n');
    }
  });

  it('--daily-budget with more decimals than the currency: exit 2 after reading the currency only', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/12/accounts/acct1/funding_instruments', { query: { count: '1' } }),
      json({ data: [{ id: FI, currency: 'USD' }] }),
    );
    const t = tc({ transport: http });
    const err = await t.run(['ads', 'campaigns', 'update', 'c1', '--daily-budget', '30.505']).catch((e: unknown) => e);
    expect(exitCodeOf(err)).toBe(2);
    expect(String(err)).toContain('--daily-budget 30.505: USD has 2 decimals');
    expect(http.requests.map((r) => r.method)).toEqual(['GET']);
  });
});

const CAMPAIGNS = [
  {
    id: '8wku2',
    name: 'Spring sale',
    entity_status: 'ACTIVE',
    funding_instrument_id: FI,
    daily_budget_amount_local_micro: 5000000,
    currency: 'USD',
    created_at: '2026-01-10T09:00:00Z',
    deleted: false,
  },
  {
    id: '8wku3',
    name: 'Winter \u001b[31mred',
    entity_status: 'PAUSED',
    funding_instrument_id: FI,
    daily_budget_amount_local_micro: null,
    currency: 'USD',
    created_at: '2026-01-11T09:00:00Z',
    deleted: false,
  },
];

describe('list and get: exact piped and terminal output', () => {
  const listed = () =>
    new HttpRegistry().register(
      route('GET', '/12/accounts/acct1/campaigns', { query: { with_total_count: 'true' } }),
      json({ data: CAMPAIGNS, next_cursor: 'c-2', total_count: 3 }),
    );
  it('campaigns list, piped: TSV of the columns, control characters escaped; the count on stderr', async () => {
    const http = listed();
    const t = tc({ transport: http });
    await t.run(['ads', 'campaigns', 'list', '--with-total-count']);
    http.verify();
    expect(t.stdout()).toBe(
      '8wku2\tSpring sale\tACTIVE\tlygyi\t5000000\t\t2026-01-10T09:00:00Z\n' +
        '8wku3\tWinter \\u001b[31mred\tPAUSED\tlygyi\t\t\t2026-01-11T09:00:00Z\n',
    );
    expect(t.stderr()).toBe('total_count: 3\n');
  });

  it('campaigns list on an 80-column terminal: a table that fits, the hidden columns and the next page named', async () => {
    const t = tc({ transport: listed(), tty: true });
    await t.run(['ads', 'campaigns', 'list', '--with-total-count']);
    expect(t.stdout()).toBe(
      [
        // issue 46: the budgets in currency units before the funding instrument's id
        '┌───────┬──────────────────────┬───────────────┬──────────────┬──────────────┐',
        '│ id    │ name                 │ entity_status │ daily_budget │ total_budget │',
        '├───────┼──────────────────────┼───────────────┼──────────────┼──────────────┤',
        '│ 8wku2 │ Spring sale          │ ACTIVE        │ 5.00 USD     │              │',
        '│ 8wku3 │ Winter \\u001b[31mred │ PAUSED        │              │              │',
        '└───────┴──────────────────────┴───────────────┴──────────────┴──────────────┘',
        '',
      ].join('\n'),
    );
    expect(t.stderr()).toBe(
      'total_count: 3\n' +
        '(2 columns hidden: funding_instrument_id, created_at; ' +
        'use -o json or --fields)\nmore results: --all, or --cursor c-2\n',
    );
  });

  it('campaigns get: one TSV line piped; a two-column table with money in the currency on a terminal', async () => {
    const one = () =>
      new HttpRegistry().register(route('GET', '/12/accounts/acct1/campaigns/8wku2'), json({ data: CAMPAIGNS[0] }));
    const piped = tc({ transport: one() });
    await piped.run(['ads', 'campaigns', 'get', '8wku2']);
    expect(piped.stdout()).toBe('8wku2\tSpring sale\tACTIVE\tlygyi\t5000000\t\t2026-01-10T09:00:00Z\n');
    const term = tc({ transport: one(), tty: true });
    await term.run(['ads', 'campaigns', 'get', '8wku2']);
    expect(term.stdout()).toBe(
      [
        '┌───────────────────────┬──────────────────────┐',
        '│ id                    │ 8wku2                │',
        '│ name                  │ Spring sale          │',
        '│ entity_status         │ ACTIVE               │',
        '│ funding_instrument_id │ lygyi                │',
        '│ daily_budget          │ 5.00 USD             │',
        '│ currency              │ USD                  │',
        '│ created_at            │ 2026-01-10T09:00:00Z │',
        '│ deleted               │ false                │',
        '└───────────────────────┴──────────────────────┘',
        '',
      ].join('\n'),
    );
    expect(term.stderr()).toBe('');
  });

  it('--all follows next_cursor (without with_total_count after the first page); --limit stops', async () => {
    const page = (data: unknown[], next: string | null) => json({ data, next_cursor: next });
    const http = new HttpRegistry()
      .register(route('GET', '/12/accounts/acct1/campaigns', { query: { count: '1' } }), page([CAMPAIGNS[0]], 'c-2'))
      .register(route('GET', '/12/accounts/acct1/campaigns', { query: { cursor: 'c-2' } }), page([CAMPAIGNS[1]], null));
    const t = tc({ transport: http });
    await t.run([
      'ads',
      'campaigns',
      'list',
      '--count',
      '1',
      '--with-total-count',
      '--all',
      '--fields',
      'id',
      '-o',
      'tsv',
    ]);
    http.verify();
    expect(t.stdout()).toBe('8wku2\n8wku3\n');
    expect(http.requests.map((r) => r.query.get('with_total_count'))).toEqual(['true', null]);
    const lim = new HttpRegistry().register(route('GET', '/12/accounts/acct1/campaigns'), page(CAMPAIGNS, 'c-9'));
    const t2 = tc({ transport: lim });
    await t2.run(['ads', 'campaigns', 'list', '--limit', '1', '--fields', 'id', '-o', 'tsv']);
    expect(t2.stdout()).toBe('8wku2\n');
    expect(lim.requests).toHaveLength(1);
  });

  it('a delete asks on a terminal with the name it read; "no" deletes nothing', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/12/accounts/acct1/campaigns/8wku2'),
      json({ data: CAMPAIGNS[0] }),
    );
    const t = tc({ transport: http, tty: { stdin: true, stdout: true, stderr: true }, stdin: 'n\n' });
    await t.run(['ads', 'campaigns', 'delete', '8wku2']);
    expect(t.stderr()).toContain('delete campaign 8wku2 ("Spring sale")? This cannot be undone.');
    expect(t.stderr()).toContain('nothing deleted');
    expect(http.requests.map((r) => r.method)).toEqual(['GET']);
  });
});

const JOB_ID = '1381302245934485504';
const STATS = {
  data_type: 'stats',
  time_series_length: 2,
  request: { params: { start_time: '2026-05-01T04:00:00Z', end_time: '2026-05-03T04:00:00Z', granularity: 'DAY' } },
  data: [
    {
      id: LI,
      id_data: [{ segment: null, metrics: { impressions: [10, 20], billed_charge_local_micro: [1000, 2000] } }],
    },
  ],
};
const jobOf = (status: string, url: string | null) => ({
  id_str: JOB_ID,
  status,
  entity: 'LINE_ITEM',
  granularity: 'TOTAL',
  start_time: '2026-05-01T04:00:00Z',
  end_time: '2026-05-03T04:00:00Z',
  url,
  expires_at: url ? '2026-01-17T12:00:00Z' : null,
});
/** A job list answer with the 64-bit id as a bare number, as the service sends it. */
const jobBody = (status: string, url: string | null) =>
  text(`{"data":[{"id":${JOB_ID},${JSON.stringify(jobOf(status, url)).slice(1)}]}`, 200, 'application/json');
const jobRoute = () => route('GET', '/12/stats/jobs/accounts/acct1', { query: { job_ids: JOB_ID } });
const usd = () => json({ data: [{ id: FI, currency: 'USD' }] });

describe('ads stats and stats jobs', () => {
  it('stats: one row per entity and day, piped; the query the flags make (defaults filled in)', async () => {
    const http = new HttpRegistry()
      .register(route('GET', '/12/stats/accounts/acct1'), json(STATS))
      .register(route('GET', '/12/accounts/acct1/funding_instruments'), usd());
    const t = tc({ transport: http });
    await t.run(['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', LI, '--start', '2026-05-01', '--end', '2026-05-03']);
    expect(http.requests[0]!.url.search).toBe(
      '?entity=LINE_ITEM&entity_ids=8v7jo&start_time=2026-05-01&end_time=2026-05-03&granularity=DAY' +
        '&metric_groups=ENGAGEMENT%2CBILLING&placement=ALL_ON_TWITTER',
    );
    expect(t.stdout()).toBe(
      '8v7jo\t2026-05-01T04:00:00Z\t2026-05-02T04:00:00Z\t10\t1000\tUSD\n' +
        '8v7jo\t2026-05-02T04:00:00Z\t2026-05-03T04:00:00Z\t20\t2000\tUSD\n',
    );
  });

  it('job get keeps every digit of the 64-bit id (TSV, jq, jsonl)', async () => {
    const t = tc({ transport: new HttpRegistry().register(jobRoute(), jobBody('QUEUED', null)) });
    await t.run(['ads', 'stats', 'job', 'get', JOB_ID, '--fields', 'id,id_str,status', '-o', 'tsv']);
    expect(t.stdout()).toBe(`${JOB_ID}\t${JOB_ID}\tQUEUED\n`);
    const j = tc({ transport: new HttpRegistry().register(jobRoute(), jobBody('QUEUED', null)) });
    await j.run(['ads', 'stats', 'job', 'get', JOB_ID, '--jq', '[.id, .id_str] | map(tostring) | .[0] == .[1]']);
    expect(j.stdout()).toBe('true\n');
    const l = tc({ transport: new HttpRegistry().register(jobRoute(), jobBody('QUEUED', null)) });
    await l.run(['ads', 'stats', 'job', 'get', JOB_ID, '-o', 'jsonl']);
    expect(l.stdout()).toMatch(new RegExp(`^\\{"id":${JOB_ID},"id_str":"${JOB_ID}",`));
  });

  it('job wait --download: polls (1 s) until SUCCESS, fetches the file without credentials, prints its rows', async () => {
    const metrics = { impressions: [30], billed_charge_local_micro: [3000] };
    const file = {
      ...STATS,
      time_series_length: 1,
      request: { params: { ...STATS.request.params, granularity: 'TOTAL' } },
      data: [{ id: LI, id_data: [{ segment: null, metrics }] }],
    };
    const http = new HttpRegistry()
      .register(jobRoute(), jobBody('QUEUED', null))
      .register(jobRoute(), jobBody('SUCCESS', 'https://ton.example/f.json.gz'))
      .register(route('GET', '/f.json.gz'), () => ({
        status: 200,
        headers: { 'content-type': 'application/gzip' },
        body: gzipSync(Buffer.from(JSON.stringify(file))),
      }))
      .register(route('GET', '/12/accounts/acct1/funding_instruments'), usd());
    const t = tc({ transport: http });
    await t.run(['ads', 'stats', 'job', 'wait', JOB_ID, '--download']);
    http.verify();
    expect(t.stdout()).toBe('8v7jo\t2026-05-01T04:00:00Z\t2026-05-03T04:00:00Z\t30\t3000\tUSD\n');
    expect(t.stderr()).toBe(`job ${JOB_ID}: QUEUED; checking again in 1.0 s\n`);
    const file$ = http.requests.find((r) => r.url.host === 'ton.example')!;
    expect(file$.headers.authorization).toBeUndefined();
  });

  it('job wait of a cancelled job fails (exit 1); download of an expired file fails and says so', async () => {
    const cancelled = tc({ transport: new HttpRegistry().register(jobRoute(), jobBody('CANCELLED', null)) });
    await expect(cancelled.run(['ads', 'stats', 'job', 'wait', JOB_ID])).rejects.toMatchObject({
      exitCode: 1,
      message: `stats job ${JOB_ID} ended CANCELLED`,
    });
    const expired = jobBody('SUCCESS', 'https://ton.example/f.json.gz');
    const clock = new FakeClock(Date.parse('2026-01-18T00:00:00Z'));
    const t = tc({ transport: new HttpRegistry().register(jobRoute(), expired), clock });
    await expect(t.run(['ads', 'stats', 'job', 'download', JOB_ID])).rejects.toMatchObject({
      exitCode: 1,
      message: `the file of stats job ${JOB_ID} expired at 2026-01-17T12:00:00Z`,
    });
  });
});

// Issue 46 items 4-5: every missing or invalid flag in one refusal (as gh reports them), and an
// enum value in another case taken for the one value it can only mean.
describe('every problem with the flags at once; enums in any case', () => {
  it('line-items create with nothing: the four required flags named in one run', async () => {
    const err = await refusal(tc, ['ads', 'line-items', 'create']);
    expect(err).toMatch(/^4 problems with the flags, nothing was sent:\n/);
    for (const f of ['--campaign-id', '--objective', '--product-type', '--placements'])
      expect(err).toContain(`\n  ${f} is required`);
  });

  it('a missing flag and an invalid one together, each with its rule and did-you-mean', async () => {
    const err = await refusal(tc, [
      'ads',
      'line-items',
      'create',
      '--objective',
      'WEBSITE_CLICK',
      '--placements',
      'ALL_ON_TWITTER',
    ]);
    expect(err).toMatch(/^3 problems with the flags, nothing was sent:\n/);
    expect(err).toContain('\n  --campaign-id is required');
    expect(err).toMatch(/\n {2}--objective .*\(got "WEBSITE_CLICK"\) \(did you mean --objective WEBSITE_CLICKS\?\)/);
  });

  it('--entity-status active is ACTIVE; --placements twitter_search,twitter_timeline is both', async () => {
    const http = new HttpRegistry();
    const t = tc({ transport: http, env: SANDBOX_ENV });
    await t.run(['ads', 'campaigns', 'update', '8wku2', '--entity-status', 'paused', '--dry-run']);
    expect(JSON.parse(t.stdout()).params).toMatchObject({ entity_status: 'PAUSED' });
    const t2 = tc({ transport: http, env: SANDBOX_ENV });
    await t2.run([
      'ads',
      'line-items',
      'update',
      '8v7jo',
      '--placements',
      'twitter_search,twitter_timeline',
      '--dry-run',
    ]);
    expect(JSON.parse(t2.stdout()).params).toMatchObject({ placements: 'TWITTER_SEARCH,TWITTER_TIMELINE' });
    expect(http.requests).toEqual([]);
  });
});
