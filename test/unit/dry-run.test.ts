// --dry-run on every write (issue 33): the whole command tree is walked, and every command whose
// endpoint method is POST, PUT or DELETE must take --dry-run, unless the allow-list below says
// why not. Then a few of them in-process: the exact request printed, and no request sent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram, GROUPS, loadGroups } from '../../src/program.js';
import { HttpRegistry } from '../helpers/http-registry.js';
import { testContext, type TestContext } from '../helpers/test-context.js';

/**
 * The methods each hand-written command sends to the service. Generated commands (and a few
 * hand-written ones) say theirs in their description ("... — POST /12/..."), read from there.
 * Every leaf command must be in one place or the other: a new command is a decision here.
 */
const CALLS: Record<string, string[]> = {
  'auth set': [],
  // A server: it sends only what its tools' verbs send, each write planned with their own --dry-run.
  mcp: [],
  __complete: ['GET'],
  'ads report': ['GET'],
  'auth login': ['POST'],
  'auth logout': ['POST'],
  'auth app-token': ['POST'],
  'auth import': [],
  'auth status': ['GET'],
  'auth token': ['POST'],
  'auth profiles list': [],
  'auth profiles use': [],
  'auth profiles remove': [],
  'auth migrate': [],
  request: ['GET', 'POST', 'PUT', 'DELETE'],
  'config get': [],
  'config set': [],
  'config unset': [],
  'config list': [],
  'config path': [],
  'webhooks create': ['POST'],
  'webhooks list': ['GET'],
  'webhooks delete': ['DELETE'],
  'webhooks validate': ['PUT'],
  'webhooks replay': ['POST'],
  'webhooks crc': [],
  'webhooks verify': [],
  'webhooks listen': ['POST', 'DELETE'],
  'webhooks doctor': ['GET'],
  'webhooks send': ['POST'],
  'activity subscriptions create': ['POST'],
  'activity subscriptions list': ['GET'],
  'activity subscriptions update': ['PUT'],
  'activity subscriptions delete': ['DELETE'],
  'activity stream': ['GET'],
  'account-activity subscribe': ['POST'],
  'account-activity list': ['GET'],
  'account-activity count': ['GET'],
  'account-activity unsubscribe': ['DELETE'],
  'stream rules list': ['GET'],
  'stream rules add': ['POST'],
  'stream rules counts': ['GET'],
  'stream rules delete': ['POST'],
  'stream webhooks link': ['POST'],
  'stream webhooks unlink': ['DELETE'],
  'stream webhooks list': ['GET'],
  'audiences upload': ['POST'],
  'audiences sync': ['POST'],
  'audiences hash': [],
  'audiences inspect': [],
  'audiences apply': ['GET', 'POST', 'PUT', 'DELETE'],
  'audiences do-not-reach upload': ['POST'],
  'sandbox start': [],
  'sandbox trigger': ['POST'],
  'sandbox logs': ['GET'],
  'sandbox state': ['GET'],
  'sandbox clock': ['GET', 'POST'],
  'sandbox faults list': ['GET'],
  'sandbox faults set': ['POST'],
  'sandbox faults clear': ['DELETE'],
  'ads stats job wait': ['GET'],
  'ads stats job download': ['GET'],
  changelog: [],
  completion: [],
};

/** Writes without --dry-run, and why. */
const ALLOWED: Record<string, string> = {
  // Credential flows: they obtain or drop the very credentials requests are signed with; what
  // they would send is a secret, and `auth status` shows what is held.
  'auth login': 'a login flow',
  'auth logout': 'drops the credentials (--local-only forgets them without a request)',
  'auth app-token': 'obtains or (--invalidate) drops the app bearer',
  'auth token': 'prints a credential, obtaining the app bearer when none is cached',
  // The raw call: the user writes the request; -v traces it.
  request: 'a raw request written by the user',
  // Their dry run is --plan: the whole input is read and diffed, nothing is sent.
  'audiences sync': '--plan',
  'audiences apply': '--plan',
  // A POST that only computes (the audience size of a targeting); it changes nothing.
  'audiences estimate': 'a read sent as POST',
  // A long-running receiver; `--register` makes its webhook (what `webhooks create --dry-run` shows).
  'webhooks listen': 'a receiver',
  // One signed delivery to the user's own receiver: the service is not called.
  'webhooks send': 'sends to your receiver, not the service',
  // The local emulator's admin endpoints (loopback, the sandbox only); trigger takes --dry-run (issue 46).
  'sandbox clock': 'sandbox admin',
  'sandbox faults set': 'sandbox admin',
  'sandbox faults clear': 'sandbox admin',
};

async function leaves(): Promise<Map<string, Command>> {
  const program = buildProgram('0.0.0-test');
  await loadGroups(program, Object.keys(GROUPS));
  const out = new Map<string, Command>();
  const walk = (c: Command, p: string[]) => {
    if (!c.commands.length && p.length) out.set(p.join(' '), c);
    for (const s of c.commands) if (s.name() !== 'help') walk(s, [...p, s.name()]);
  };
  walk(program, []);
  return out;
}

describe('--dry-run on every write', () => {
  it('every command whose endpoint is POST, PUT or DELETE takes --dry-run (or is allowed, with a reason)', async () => {
    const all = await leaves();
    const missing: string[] = [];
    const unknown: string[] = [];
    for (const [name, cmd] of all) {
      const described = / — (GET|POST|PUT|DELETE) \//.exec(cmd.description())?.[1];
      const methods = CALLS[name] ?? (described ? [described] : undefined);
      if (!methods) {
        unknown.push(name);
        continue;
      }
      const writes = methods.some((m) => m !== 'GET');
      const dry = cmd.options.some((o) => o.long === '--dry-run');
      if (writes && !dry && !ALLOWED[name]) missing.push(name);
    }
    expect(unknown, 'commands neither described with their method nor listed in CALLS').toEqual([]);
    expect(missing, 'writes without --dry-run').toEqual([]);
    // The lists name only commands that exist, and the allow-list only writes without the flag.
    for (const name of [...Object.keys(CALLS), ...Object.keys(ALLOWED)]) expect(all.has(name), name).toBe(true);
    for (const name of Object.keys(ALLOWED))
      expect(
        all.get(name)!.options.some((o) => o.long === '--dry-run'),
        name,
      ).toBe(false);
  });
});

describe('--dry-run prints the request and sends nothing', () => {
  let t: TestContext | undefined;
  const dirs: string[] = [];
  afterEach(() => {
    t?.cleanup();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const run = async (args: string[]) => {
    const reg = new HttpRegistry();
    t = testContext({ transport: reg, env: { XCTL_ACCOUNT_ID: 'acct1' } });
    await t.run(args);
    expect(reg.requests).toEqual([]);
    return { stdout: t.stdout(), stderr: t.stderr() };
  };

  it('activity subscriptions create: the JSON body, checked first', async () => {
    expect(
      await run(['activity', 'subscriptions', 'create', '--event', 'post.create', '--user-id', '42', '--dry-run']),
    ).toEqual({
      stdout:
        '{"dry_run":true,"method":"POST","url":"https://api.x.com/2/activity/subscriptions","json":{"event_type":"post.create","filter":{"user_id":"42"}}}\n',
      stderr: 'dry run: nothing was sent\n',
    });
  });

  it('activity subscriptions delete of many ids: one line per request (up to 100 ids each), nothing asked', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => String(1000 + i));
    const out = await run(['activity', 'subscriptions', 'delete', ...ids, '--dry-run']);
    const lines = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string; url: string });
    expect(lines.map((l) => [l.method, new URL(l.url).searchParams.get('ids')!.split(',').length])).toEqual([
      ['DELETE', 100],
      ['DELETE', 1],
    ]);
    expect(out.stderr).toBe('dry run: 2 requests, nothing was sent\n');
  });

  it('webhooks validate (PUT), account-activity unsubscribe and stream webhooks link', async () => {
    expect((await run(['webhooks', 'validate', '123', '--dry-run'])).stdout).toBe(
      '{"dry_run":true,"method":"PUT","url":"https://api.x.com/2/webhooks/123"}\n',
    );
    expect((await run(['account-activity', 'unsubscribe', '123', '--user-id', '42', '--dry-run'])).stdout).toBe(
      '{"dry_run":true,"method":"DELETE","url":"https://api.x.com/2/account_activity/webhooks/123/subscriptions/42/all"}\n',
    );
    expect((await run(['stream', 'webhooks', 'link', '123', '--tweet-fields', 'created_at', '--dry-run'])).stdout).toBe(
      '{"dry_run":true,"method":"POST","url":"https://api.x.com/2/tweets/search/webhooks/123?tweet.fields=created_at"}\n',
    );
  });

  it('audiences permissions grant and an ads batch (generated): the form parameters, the JSON body', async () => {
    expect(
      (
        await run([
          'audiences',
          'permissions',
          'grant',
          'ca1',
          '--granted-account-id',
          'acct2',
          '--permission-level',
          'READ_ONLY',
          '--dry-run',
        ])
      ).stdout,
    ).toBe(
      '{"dry_run":true,"method":"POST","url":"https://ads-api.x.com/12/accounts/acct1/custom_audiences/ca1/permissions","params":{"granted_account_id":"acct2","permission_level":"READ_ONLY"}}\n',
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-dry-'));
    dirs.push(dir);
    const file = path.join(dir, 'ops.json');
    const ops = [{ operation_type: 'Update', params: { campaign_id: 'c1', entity_status: 'PAUSED' } }];
    fs.writeFileSync(file, JSON.stringify(ops));
    expect(await run(['ads', 'campaigns', 'batch', '--file', file, '--dry-run'])).toEqual({
      stdout: `{"dry_run":true,"method":"POST","url":"https://ads-api.x.com/12/batch/accounts/acct1/campaigns","json":${JSON.stringify(ops)}}\n`,
      stderr: 'dry run: nothing was sent\n',
    });
  });

  it('media upload: the INIT request, and what would follow', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-dry-'));
    dirs.push(dir);
    const png = path.join(dir, 'a.png');
    fs.writeFileSync(png, Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(100)]));
    expect(await run(['media', 'upload', png, '--dry-run'])).toEqual({
      stdout:
        '{"dry_run":true,"method":"POST","url":"https://api.x.com/2/media/upload/initialize","json":{"media_type":"image/png","total_bytes":116,"media_category":"tweet_image"}}\n',
      stderr: 'dry run: nothing was sent (then 1 APPEND of up to 4 MiB, FINALIZE)\n',
    });
  });

  // issue 46 item 11: sandbox trigger takes --dry-run; --jq runs on the dry run's JSON
  it('sandbox trigger --dry-run: the event it would post, nothing sent', async () => {
    expect(await run(['sandbox', 'trigger', 'profile.update.bio', '--user-id', '42', '--dry-run'])).toEqual({
      stdout:
        '{"dry_run":true,"method":"POST","url":"https://api.x.com/_sandbox/events","json":{"event_type":"profile.update.bio","user_id":"42","payload":{}}}\n',
      stderr: 'dry run: nothing was sent\n',
    });
  });

  it('--jq on a dry run filters its JSON, with no warning', async () => {
    expect(
      await run([
        'ads',
        'campaigns',
        'update',
        'c1',
        '--entity-status',
        'PAUSED',
        '--dry-run',
        '--jq',
        '.params.entity_status',
      ]),
    ).toEqual({ stdout: 'PAUSED\n', stderr: 'dry run: nothing was sent\n' });
    expect(await run(['webhooks', 'create', 'https://hooks.example.com/x', '--dry-run', '--jq', '.json.url'])).toEqual({
      stdout: 'https://hooks.example.com/x\n',
      stderr: 'dry run: nothing was sent\n',
    });
  });
});
