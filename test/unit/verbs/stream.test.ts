// `xctl stream rules ...` and `xctl stream webhooks ...` tested where the verbs live: flags ->
// options through runF, the exact request (HTTP registry), piped output and the words on stderr,
// refusals before sending, and per-rule errors. The sandbox's rule language, DuplicateRule and
// deliveries to linked webhooks are proven end to end in test/e2e/activity.test.ts and
// test/e2e/webhooks.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { register as registerAdd, rulesAdd } from '../../../src/commands/stream/rules/add.js';
import { register as registerDelete, rulesDelete } from '../../../src/commands/stream/rules/delete.js';
import { register as registerRulesList, rulesList } from '../../../src/commands/stream/rules/list.js';
import { register as registerCounts, rulesCounts } from '../../../src/commands/stream/rules/counts.js';
import { linkWebhook, register as registerLink } from '../../../src/commands/stream/webhooks/link.js';
import { register as registerUnlink, unlinkWebhook } from '../../../src/commands/stream/webhooks/unlink.js';
import { listLinks } from '../../../src/commands/stream/webhooks/list.js';
import { exitOf } from '../../helpers/exit-of.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { testContext, type TestContext } from '../../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

const RULES = '/2/tweets/search/stream/rules';

describe('stream rules add', () => {
  it('flags -> options: values, --tag, --file, --dry-run', async () => {
    t = testContext();
    expect(await t.optionsOf(registerAdd, ['add', 'a', 'b', '--tag', 't', '--file', 'f', '--dry-run'])).toEqual({
      values: ['a', 'b'],
      tag: 't',
      file: 'f',
      dryRun: true,
    });
  });

  it('refuses a rule over 2,048 characters before sending (exit 2)', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http });
    const r = await exitOf(rulesAdd(t.ctx, { values: ['x'.repeat(2049)] }));
    expect([r.code, r.message]).toEqual([2, expect.stringContaining('value must be 1-2048 characters')]);
    expect(http.requests).toEqual([]);
  });

  it('--dry-run with a rules file: dry_run=true, prints what would be added (no ids)', async () => {
    const http = new HttpRegistry().register(
      route('POST', RULES, { query: { dry_run: 'true' } }),
      json({
        data: [
          { id: '1', value: 'cats OR dogs' },
          { id: '2', value: '"sandbox news"', tag: 'news' },
        ],
        meta: { summary: { created: 0, not_created: 0, valid: 2, invalid: 0 } },
      }),
    );
    t = testContext({ transport: http });
    const file = path.join(t.configDir, 'rules.txt');
    fs.writeFileSync(file, '# pets\ncats OR dogs\n{"value":"\\"sandbox news\\"","tag":"news"}\n');
    await rulesAdd(t.ctx, { values: [], file, dryRun: true });
    expect(http.requests[0]!.json()).toEqual({
      add: [{ value: 'cats OR dogs' }, { value: '"sandbox news"', tag: 'news' }],
    });
    expect(t.stdout()).toBe('cats OR dogs\t\n"sandbox news"\tnews\n');
    expect(t.stderr()).toBe('dry run: would add 2, invalid 0; nothing was added\n');
  });

  it('a per-rule refusal (400 with a summary) names the rule on stderr and exits 1', async () => {
    const http = new HttpRegistry().register(
      route('POST', RULES),
      json(
        {
          errors: [{ title: 'DuplicateRule', value: 'birds' }],
          meta: { summary: { created: 0, not_created: 1, valid: 0, invalid: 1 } },
        },
        400,
      ),
    );
    t = testContext({ transport: http });
    const r = await exitOf(rulesAdd(t.ctx, { values: ['birds'] }));
    expect(r).toEqual({ code: 1, message: '1 rule(s) refused; none was added' });
    expect(t.stderr()).toBe('warning: DuplicateRule: "birds"\nvalid 0, invalid 1, created 0, not created 1\n');
  });
});

describe('stream rules delete, list, counts', () => {
  it('flags -> options', async () => {
    t = testContext();
    expect(await t.optionsOf(registerDelete, ['delete', '1', '2', '--dry-run'])).toEqual({
      ids: ['1', '2'],
      dryRun: true,
    });
    expect(await t.optionsOf((p, runF) => registerRulesList(p, (ctx) => runF(ctx, {})), ['list'])).toEqual({});
    expect(await t.optionsOf((p, runF) => registerCounts(p, (ctx) => runF(ctx, {})), ['counts'])).toEqual({});
  });

  it('delete --dry-run says what would happen; delete says what did', async () => {
    const summary = { meta: { summary: { deleted: 1, not_deleted: 0 } } };
    const http = new HttpRegistry()
      .register(route('POST', RULES, { query: { dry_run: 'true' } }), json(summary))
      .register(route('POST', RULES), json(summary));
    t = testContext({ transport: http });
    await rulesDelete(t.ctx, { ids: ['7'], dryRun: true });
    await rulesDelete(t.ctx, { ids: ['7'] });
    expect(http.requests.map((r) => r.json())).toEqual([{ delete: { ids: ['7'] } }, { delete: { ids: ['7'] } }]);
    expect(t.stderr()).toBe(
      'dry run: would delete 1, would not delete 0; nothing was deleted\ndeleted 1, not deleted 0\n',
    );
  });

  it('list prints the rules; counts reads the caps', async () => {
    const http = new HttpRegistry()
      .register(route('GET', RULES), json({ data: [{ id: '7', value: 'cats', tag: 'pets' }] }))
      .register(
        route('GET', `${RULES}/counts`),
        json({
          data: {
            cap_per_client_app: 1000,
            cap_per_project: 1000,
            project_rules_count: 3,
            client_app_rules_count: { rule_count: 1, client_app_id: '99' },
          },
        }),
      );
    t = testContext({ transport: http, globals: { output: 'jsonl' } });
    await rulesList(t.ctx);
    await rulesCounts(t.ctx);
    http.verify();
    expect(t.stdout()).toBe(
      '{"id":"7","value":"cats","tag":"pets"}\n' +
        '{"app_rules":1,"cap_per_client_app":1000,"project_rules":3,"cap_per_project":1000,"client_app_id":"99"}\n',
    );
  });
});

describe('stream rules list', () => {
  it('follows next_token to the last page (the service answers at most 1000 rules a page)', async () => {
    const http = new HttpRegistry()
      .register(
        route('GET', RULES, { query: { pagination_token: '00000000000003e8' } }),
        json({ data: [{ id: '8', value: 'dogs' }], meta: { result_count: 1 } }),
      )
      .register(
        route('GET', RULES),
        json({ data: [{ id: '7', value: 'cats' }], meta: { result_count: 1, next_token: '00000000000003e8' } }),
      );
    t = testContext({ transport: http, globals: { output: 'jsonl' } });
    await rulesList(t.ctx);
    http.verify();
    expect(t.stdout()).toBe('{"id":"7","value":"cats"}\n{"id":"8","value":"dogs"}\n');
  });
});

describe('stream webhooks link, unlink, list', () => {
  it('flags -> options: each field set flag', async () => {
    t = testContext();
    expect(
      await t.optionsOf(registerLink, ['link', '12', '--tweet-fields', 'created_at', '--expansions', 'author_id']),
    ).toEqual({ webhookId: '12', dryRun: false, tweetFields: 'created_at', expansions: 'author_id' });
    expect(await t.optionsOf(registerUnlink, ['unlink', '12', '--dry-run'])).toEqual({
      webhookId: '12',
      dryRun: true,
    });
  });

  it('link sends the field set as the query; a bad id is refused before sending', async () => {
    const http = new HttpRegistry().register(
      route('POST', '/2/tweets/search/webhooks/12', { query: { 'tweet.fields': 'created_at' } }),
      json({ data: { provisioned: true } }),
    );
    t = testContext({ transport: http });
    expect((await exitOf(linkWebhook(t.ctx, { webhookId: 'abc' }))).code).toBe(2);
    await linkWebhook(t.ctx, { webhookId: '12', tweetFields: 'created_at' });
    http.verify();
    expect(t.stderr()).toBe('webhook 12 now receives posts matching the filtered stream rules\n');
  });

  it('unlink says whether it was linked; --dry-run prints the DELETE', async () => {
    const http = new HttpRegistry()
      .register(route('DELETE', '/2/tweets/search/webhooks/12'), json({ data: { deleted: true } }))
      .register(route('DELETE', '/2/tweets/search/webhooks/12'), json({ data: { deleted: false } }));
    t = testContext({ transport: http });
    await unlinkWebhook(t.ctx, { webhookId: '12', dryRun: true });
    await unlinkWebhook(t.ctx, { webhookId: '12' });
    await unlinkWebhook(t.ctx, { webhookId: '12' });
    expect(t.stdout()).toBe(
      '{"dry_run":true,"method":"DELETE","url":"https://api.x.com/2/tweets/search/webhooks/12"}\n',
    );
    expect(t.stderr()).toBe(
      'dry run: nothing was sent\nwebhook 12 unlinked from the filtered stream\nwebhook 12 was not linked\n',
    );
  });

  it('list reads both answer shapes (a list, or {links}) and joins the fields', async () => {
    const link = { webhook_id: '12', instance_id: 'i1', fields: ['tweet.fields=created_at', 'expansions=author_id'] };
    const http = new HttpRegistry()
      .register(route('GET', '/2/tweets/search/webhooks'), json({ data: [link] }))
      .register(route('GET', '/2/tweets/search/webhooks'), json({ data: { links: [link] } }));
    t = testContext({ transport: http, globals: { output: 'tsv', fields: 'webhook_id,fields' } });
    await listLinks(t.ctx);
    await listLinks(t.ctx);
    expect(t.stdout()).toBe('12\ttweet.fields=created_at&expansions=author_id\n'.repeat(2));
  });
});

describe('stream rules through the command tree (t.run)', () => {
  it('arguments and a rules file on stdin become one add request; dry_run is a query flag', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/tweets/search/stream/rules', { query: { dry_run: 'true' } }),
      json({
        data: [{ id: '1', value: 'cats', tag: 'pets' }],
        meta: { summary: { valid: 2, invalid: 0, created: 0, not_created: 2 } },
      }),
    );
    t = testContext({ transport: reg, stdin: '# comment\ndogs\n{"value":"birds","tag":"b"}\n' });
    await t.run(['stream', 'rules', 'add', 'cats', '--tag', 'pets', '--file', '-', '--dry-run', '-o', 'tsv']);
    expect(reg.requests[0]!.json()).toEqual({
      add: [{ value: 'cats', tag: 'pets' }, { value: 'dogs' }, { value: 'birds', tag: 'b' }],
    });
    // No made-up ids: the rules as they would be added.
    expect(t.stdout()).toBe('cats\tpets\n');
    expect(t.stderr()).toBe('dry run: would add 2, invalid 0; nothing was added\n');
  });

  it('delete --dry-run says what would be deleted', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/tweets/search/stream/rules', { query: { dry_run: 'true' } }),
      json({ meta: { summary: { deleted: 2, not_deleted: 0 } } }),
    );
    t = testContext({ transport: reg });
    await t.run(['stream', 'rules', 'delete', '11', '12', '--dry-run']);
    expect(reg.requests[0]!.json()).toEqual({ delete: { ids: ['11', '12'] } });
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toBe('dry run: would delete 2, would not delete 0; nothing was deleted\n');
  });
});
