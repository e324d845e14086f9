// `xctl ads ...` tested where the verbs live (issue 27 item 3). The generated verbs, table-driven
// over the ads table: flags -> options through runF, the request each verb sends, --dry-run of
// every write; then exact piped and TTY output of a few lists and gets, the stats job verbs, and
// every refusal that used to spawn the CLI against a sandbox (exit 2, nothing sent).
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../../src/ads/resources.js';
import type { OperationDef, ParamDef, ResourceDef } from '../../../src/ads/resource-types.js';
import { sampleValue } from '../../../src/commands/ads/example-values.js';
import { addOperation } from '../../../src/commands/ads/generate.js';
import { positionalsOf, type OperationOptions } from '../../../src/commands/ads/run.js';
import { HttpRegistry, json, route, text } from '../../helpers/http-registry.js';
import { TEST_NOW, testContext, type TestContext, type TestContextOptions } from '../../helpers/test-context.js';
import { exitCodeOf, refusal } from '../../helpers/ads.js';

const made: TestContext[] = [];
afterEach(() => {
  for (const t of made.splice(0)) t.cleanup();
});
function tc(o: TestContextOptions = {}): TestContext {
  const t = testContext(o);
  made.push(t);
  return t;
}
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
const sample = (key: string, d?: ParamDef) => sampleValue(key, d).replace(/^"(.*)"$/, '$1');
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


