// Nothing sent, in-process. The bad-input corpus of every command group (issue 10): malformed
// flags, wrong enums, oversize strings, invalid, empty, binary or missing files for every file
// input; each is refused before anything is sent (exit 2, the HTTP registry untouched; `webhooks
// verify` answers 1 without sending), with one error line. Also did-you-mean for values, and the
// dry runs of the hand-written writes. The real process's side of the error contract (one
// `error:` line, at most one `hint:`, no stack, long values clipped) is in test/e2e/safety-input.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRegistry } from '../helpers/http-registry.js';
import { type CorpusCase, expectCorpus, outcome } from '../helpers/outcome.js';
import { testContext } from '../helpers/test-context.js';
import { writeBadInputs } from '../helpers/bad-input.js';

let dir: string;
const f: Record<string, string> = {};
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-refusals-'));
  Object.assign(f, writeBadInputs(dir));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Case = CorpusCase;

/** Runs each case in a fresh context; none may send a request (the registry has no stub). */
async function corpus(cases: Case[]): Promise<void> {
  let reg = new HttpRegistry();
  await expectCorpus(
    cases,
    (c) => testContext({ transport: (reg = new HttpRegistry()), env: c.env }),
    (t, label, o) => {
      expect(o.hint ?? '', label).not.toContain('\n');
      expect(reg.requests, label).toEqual([]);
      expect(t.stdout(), label).toBe('');
    },
  );
}

const long = 'x'.repeat(5000);

describe('malformed flags and wrong enums: exit 2, nothing sent (bad-input)', () => {
  it('auth, request, config, changelog, completion, sandbox', async () => {
    await corpus([
      { args: ['auth', 'set', '--api-key'], code: 2, re: /argument missing/ },
      {
        args: ['auth', 'login', '--access-level', 'admin', '--no-browser'],
        code: 2,
        re: /--access-level must be read or write/,
      },
      { args: ['auth', 'login', '--callback-port', '99999', '--no-browser'], code: 2, re: /--callback-port/ },
      { args: ['auth', 'token', '--type', 'bogus'], code: 2, re: /--type must be user, app or oauth2/ },
      { args: ['auth', 'profiles', 'use', 'nosuch'], code: 2, re: /no profile named "nosuch"/ },
      { args: ['auth', 'set', '--api-secret', 'on-argv'], code: 2, re: /shell history/ },
      { args: ['--profile', 'bad name!', 'auth', 'status'], code: 2, re: /profile names/ },
      { args: ['request'], code: 2, re: /missing required argument 'path'/ },
      { args: ['request', '-X', 'FOO', '/1.1/x'], code: 2, re: /-X must be one of/ },
      { args: ['request', '/1.1/x', '-H', 'no-colon'], code: 2, re: /-H takes "Name: value"/ },
      { args: ['request', '-X', 'POST', '/1.1/x', '-d', 'noequals'], code: 2, re: /-d takes key=value/ },
      { args: ['request', '/1.1/x', '--auth', 'weird'], code: 2, re: /--auth must be one of/ },
      { args: ['request', '/1.1/x', '--no-such-flag'], code: 2, re: /unknown option '--no-such-flag'/ },
      { args: ['request', '/1.1/x', '-o', 'xml'], code: 2, re: /argument 'xml' is invalid/ },
      { args: ['request', '/1.1/x', '--max-wait', 'soon'], code: 2, re: /--max-wait must be a whole number/ },
      { args: ['config', 'get', 'nosuchkey'], code: 2, re: /unknown setting "nosuchkey"/ },
      { args: ['config', 'set', 'output', 'xml'], code: 2, re: /output must be/ },
      { args: ['config', 'set', 'base_url', 'notaurl'], code: 2, re: /base_url must be an http\(s\) URL/ },
      { args: ['changelog', '--since', 'yesterday'], code: 2, re: /--since must be a date/ },
      { args: ['completion', 'powershell'], code: 2, re: /shell must be bash, zsh or fish/ },
      { args: ['sandbox', 'start', '--port', 'abc'], code: 2, re: /--port must be/ },
      // numeric options are parsed strictly (hostile-server)
      { args: ['sandbox', 'start', '--port', '1e3'], code: 2, re: /--port must be/ },
      { args: ['activity', 'stream', '--stall-timeout', '0x10'], code: 2, re: /--stall-timeout must be/ },
      { args: ['sandbox', 'start', '--clock', 'sundial'], code: 2, re: /--clock must be real or manual/ },
      { args: ['sandbox', 'start', '--faults', 'garbage'], code: 2, re: /--faults/ },
      { args: ['sandbox', 'trigger', 'profile.update.bio', '--data', '{bad'], code: 2, re: /--data is not valid JSON/ },
      {
        args: ['auth', 'import', '--file', 'x'],
        code: 2,
        re: /unknown option '--file' \(did you mean one of --fields, --profile\?\)$/,
      },
      // issue 46 item 5: did-you-mean for options, fields, enum values, fault names
      {
        args: ['ads', 'campaigns', 'list', '--paginate'],
        code: 2,
        re: /unknown option '--paginate' \(did you mean --all\? it follows every page\)$/,
      },
      {
        args: ['ads', 'campaigns', 'list', '--with-totl-count'],
        code: 2,
        re: /unknown option '--with-totl-count' \(did you mean --with-total-count\?\)$/,
      },
      { args: ['audiences', 'hash', '-', '--type', 'emial'], code: 2, re: /\(got "emial"\) \(did you mean email\?\)$/ },
      {
        args: ['sandbox', 'start', '--faults', 'eror_rate=0.1'],
        code: 2,
        re: /\(did you mean error_rate or drop_rate\?\)$/,
      },
    ]);
  });

  it('webhooks, activity, stream', async () => {
    await corpus([
      { args: ['webhooks', 'create', 'notaurl'], code: 2, re: /webhook URL must/ },
      { args: ['webhooks', 'create', 'http://example.com/x'], code: 2, re: /must use https/ },
      { args: ['webhooks', 'create', `https://example.com/${long}`], code: 2, re: /webhook URL must/ },
      {
        args: ['webhooks', 'replay', '1', '--from', 'garbage', '--to', 'x'],
        code: 2,
        re: /--from must be an ISO time/,
      },
      { args: ['webhooks', 'listen', '--port', '99999'], code: 2, re: /--port must be/ },
      // verify checks raw bytes, so a binary body is a body like any other: the check answers no
      { args: ['webhooks', 'verify', '--signature', 'x', '--body', `@${f.bin}`], code: 1, re: /signature invalid/ },
      { args: ['webhooks', 'verify', '--signature', 'x', '--body', `@${f.empty}`], code: 1, re: /signature invalid/ },
      { args: ['webhooks', 'verify', '--signature', 'x', '--body', `@${f.missing}`], code: 2, re: /no such file/ },
      { args: ['activity', 'subscriptions', 'create', '--event', 'nope.event'], code: 2, re: /--event must be one of/ },
      {
        args: ['activity', 'subscriptions', 'create', '--event', 'profile.update.bio', '--direction', 'sideways'],
        code: 2,
        re: /--direction/,
      },
      {
        args: ['activity', 'subscriptions', 'create', '--event', 'dm.received', '--keyword', long],
        code: 2,
        re: /--keyword must be 1-150/,
      },
      { args: ['activity', 'subscriptions', 'delete', 'abc', '--yes'], code: 2, re: /1-19 digits/ },
      { args: ['activity', 'stream', '--backfill-minutes', '9'], code: 2, re: /--backfill-minutes/ },
      { args: ['stream', 'rules', 'add', long], code: 2, re: /value must be 1-2048 characters/ },
      { args: ['stream', 'rules', 'add', '--file', f.bin!], code: 2, re: /looks binary/ },
      { args: ['stream', 'rules', 'add', '--file', f.empty!], code: 2, re: /rules must be a non-empty array/ },
      { args: ['stream', 'rules', 'add', '--file', f.missing!], code: 2, re: /no such file/ },
      { args: ['stream', 'webhooks', 'link', 'abc'], code: 2, re: /./ },
    ]);
  });

  it('ads: flags, enums, oversize strings and every --file input (empty, invalid JSON, binary, missing)', async () => {
    const files = (args: string[]): Case[] => [
      { args: [...args, '--file', f.empty!], code: 2, re: /empty/ },
      { args: [...args, '--file', f.bad!], code: 2, re: /not valid JSON/ },
      { args: [...args, '--file', f.bin!], code: 2, re: /looks binary/ },
      { args: [...args, '--file', f.missing!], code: 2, re: /no such file/ },
    ];
    const create = ['ads', 'campaigns', 'create', '--funding-instrument-id', 'x'];
    await corpus([
      { args: ['ads', 'campaigns', 'list', '--count', 'abc'], code: 2, re: /--count must be a whole number/ },
      { args: ['ads', 'campaigns', 'list', '--sort-by', 'nope'], code: 2, re: /--sort-by/ },
      { args: ['ads', 'campaigns', 'list', '--limit', '0'], code: 2, re: /--limit must be/ },
      {
        args: ['ads', 'campaigns', 'update', 'abc', '--entity-status', 'WRONG'],
        code: 2,
        re: /--entity-status must be one of/,
      },
      {
        args: [...create, '--daily-budget-amount-local-micro', '5', '--name', long],
        code: 2,
        re: /--name must be at most 255 characters/,
      },
      { args: ['ads', 'campaigns', 'get', 'bad id!'], code: 2, re: /must be an id/ },
      { args: ['ads', 'ref', 'placements', '--product-type', 'WRONG'], code: 2, re: /--product-type must be one of/ },
      {
        args: ['ads', 'campaigns', 'list', '--account', 'bad account!'],
        code: 2,
        re: /--account must be an account id/,
      },
      ...files(['ads', 'campaigns', 'batch']),
      ...files(['ads', 'cards', 'create']),
    ]);
  });

  it('audiences: flags, enums and every file input (--targeting, --file, upload files)', async () => {
    const upload = (...more: string[]) => ['audiences', 'upload', 'abc', f.csv!, '--type', 'email', ...more];
    await corpus([
      { args: ['audiences', 'estimate', '--targeting', f.empty!], code: 2, re: /--targeting: the targeting is empty/ },
      { args: ['audiences', 'estimate', '--targeting', f.bad!], code: 2, re: /--targeting: .*not valid JSON/ },
      { args: ['audiences', 'estimate', '--targeting', f.bin!], code: 2, re: /--targeting: .*looks binary/ },
      { args: ['audiences', 'estimate', '--targeting', f.missing!], code: 2, re: /no such file/ },
      {
        args: ['audiences', 'estimate', '--targeting', f.targeting!, '--operator', 'XX'],
        code: 2,
        re: /--operator must be one of EQ, NE/,
      },
      { args: ['audiences', 'flexible', 'create', '--file', f.empty!], code: 2, re: /empty/ },
      { args: ['audiences', 'flexible', 'create', '--file', f.bad!], code: 2, re: /not valid JSON/ },
      { args: ['audiences', 'flexible', 'create', '--file', f.bin!], code: 2, re: /looks binary/ },
      { args: ['audiences', 'upload', 'abc', f.bin!, '--type', 'email'], code: 2, re: /looks binary/ },
      { args: ['audiences', 'upload', 'abc', f.missing!, '--type', 'email'], code: 2, re: /no such file/ },
      { args: ['audiences', 'upload', 'abc', f.csv!, '--type', 'nonsense'], code: 2, re: /--type must be one of/ },
      { args: upload('--batch-size', '0'), code: 2, re: /--batch-size/ },
      { args: upload('--format', 'xml'), code: 2, re: /argument 'xml' is invalid/ },
      { args: upload('--expires-at', 'never'), code: 2, re: /--expires-at must be an ISO 8601 time/ },
      {
        args: ['audiences', 'do-not-reach', 'upload', 'abc', f.csv!, '--type', 'handle'],
        code: 2,
        re: /only email and phone_number/,
      },
      { args: ['audiences', 'sync', 'abc', f.bin!, '--type', 'email'], code: 2, re: /looks binary/ },
      { args: ['audiences', 'sync', 'abc', f.missing!, '--type', 'email', '--plan'], code: 2, re: /no such file/ },
      {
        args: ['audiences', 'sync', 'abc', f.csv!, '--type', 'email', '--concurrency', '0'],
        code: 2,
        re: /--concurrency/,
      },
      { args: ['audiences', 'hash', f.bin!, '--type', 'email'], code: 2, re: /looks binary/ },
      { args: ['audiences', 'hash', f.missing!, '--type', 'email'], code: 2, re: /does not exist/ },
      { args: ['audiences', 'hash', f.csv!, '--column', 'fax=Fax'], code: 2, re: /--column must be TYPE=HEADER/ },
      { args: ['audiences', 'list', '--limit', 'many'], code: 2, re: /--limit/ },
      // a path-like id is refused before any request (hostile-server)
      ...['../x', '..%2Fx', 'a/b'].map((id) => ({
        args: ['audiences', 'update', id, '--name', 'n'],
        code: 2,
        re: /must be an id/,
      })),
    ]);
  });
});

describe('did-you-mean for enum values and event types, before anything is sent (help-cli)', () => {
  it('the closest value is the hint or in the error', async () => {
    const env = { XCTL_ACCOUNT_ID: 'a1' };
    const tt = ['ads', 'targeting', 'add', '--line-item-id', 'l1', '--targeting-type', 'INTERESTS'];
    for (const [argv, want] of [
      [[...tt, '--targeting-value', '1'], { hint: expect.stringContaining('did you mean --targeting-type INTEREST?') }],
      [
        ['sandbox', 'trigger', 'profile.update.bo'],
        {
          error: `<event-type> must be one of the platform's event types (got "profile.update.bo")`,
          hint: expect.stringMatching(
            /^did you mean profile\.update\.bio, profile\.update\.geo or profile\.update\.url\?; /,
          ),
        },
      ],
    ] as const) {
      const reg = new HttpRegistry();
      const t = testContext({ transport: reg, env });
      try {
        expect(await outcome(t.run([...argv])), argv.join(' ')).toMatchObject({ code: 2, ...want });
        expect(reg.requests).toEqual([]);
      } finally {
        t.cleanup();
      }
    }
  });
});

describe('--dry-run on the hand-written writes prints the request and sends nothing (dry-run-cli)', () => {
  it('activity subscriptions create/delete, webhooks validate, permissions revoke, stream webhooks unlink', async () => {
    const base = 'http://127.0.0.1:9';
    const runs = [
      [
        ['activity', 'subscriptions', 'create', '--event', 'profile.update.bio', '--tag', 'ci', '--dry-run'],
        {
          method: 'POST',
          url: `${base}/2/activity/subscriptions`,
          json: { event_type: 'profile.update.bio', filter: {}, tag: 'ci' },
        },
      ],
      [
        ['activity', 'subscriptions', 'delete', '1900000000000000001', '--dry-run'],
        { method: 'DELETE', url: `${base}/2/activity/subscriptions/1900000000000000001` },
      ],
      [
        ['webhooks', 'validate', '1500000000000000001', '--dry-run'],
        { method: 'PUT', url: `${base}/2/webhooks/1500000000000000001` },
      ],
      [
        ['audiences', 'permissions', 'revoke', 'ca1', 'p1', '--dry-run'],
        { method: 'DELETE', url: `${base}/12/accounts/acct1/custom_audiences/ca1/permissions/p1`, params: {} },
      ],
      [
        ['stream', 'webhooks', 'unlink', '1500000000000000001', '--dry-run'],
        { method: 'DELETE', url: `${base}/2/tweets/search/webhooks/1500000000000000001` },
      ],
    ] as const;
    for (const [argv, request] of runs) {
      const reg = new HttpRegistry();
      const t = testContext({ transport: reg, env: { XCTL_BASE_URL: base } });
      try {
        await t.run([...argv]);
        expect(t.stderr(), argv.join(' ')).toBe('dry run: nothing was sent\n');
        expect(JSON.parse(t.stdout()), argv.join(' ')).toEqual({ dry_run: true, ...request });
        expect(reg.requests).toEqual([]);
      } finally {
        t.cleanup();
      }
    }
  });
});

describe('a base URL that is not a loopback http or an https URL (bad-input)', () => {
  it('is refused before sending (exit 2), in every family', async () => {
    const families = [
      ['webhooks', 'list'],
      ['activity', 'subscriptions', 'list'],
      ['activity', 'stream'],
      ['stream', 'rules', 'list'],
      ['ads', 'accounts', 'list'],
      ['audiences', 'list'],
      ['auth', 'login', '--no-browser'],
      ['sandbox', 'trigger', 'profile.update.bio'],
      ['request', '/1.1/x'],
    ];
    await corpus([
      ...families.map((args) => ({
        args,
        code: 2,
        re: /base.url|http is refused|not a URL/i,
        env: { XCTL_BASE_URL: 'http://example.com' },
      })),
      ...['not a url', 'ftp://x'].map((bad) => ({
        args: ['request', '/x'],
        code: 2,
        re: /XCTL_BASE_URL|base.url/i,
        env: { XCTL_BASE_URL: bad },
      })),
      { args: ['ads', 'accounts', 'list', '--base-url', 'ftp://x'], code: 2, re: /--base-url/ },
      { args: ['audiences', 'list', '--base-url', 'not a url'], code: 2, re: /--base-url/ },
    ]);
  });
});

describe('audiences upload: column detection shows the header it found, before sending (hints)', () => {
  it('a header naming no type, several unnamed columns, an unnamed plain line', async () => {
    const file = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    // ("E-Mail Address" is read as email since issue 24: a header in another language is not)
    const cases: Array<[string[], string | undefined, RegExp, RegExp]> = [
      [
        ['audiences', 'upload', 'aud1', file('a.csv', 'Name,Kontakt Mail\nAda,ada@example.com\n')],
        undefined,
        /^cannot tell which column holds what: the first row \("Name", "Kontakt Mail"\) names no identifier type/,
        /^pass --column TYPE=HEADER .*e\.g\. --column email="Kontakt Mail".*email, phone_number, handle, twitter_id, device_id, partner_user_id/,
      ],
      [
        [
          'audiences',
          'upload',
          'aud1',
          file('b.csv', 'ada@example.com,Ada\ngrace@example.com,Grace\n'),
          '--type',
          'email',
        ],
        undefined,
        /the input has 2 columns and its first row \("ada@example\.com", "Ada"\) names none of them/,
        /^--column needs a header row/,
      ],
      [
        ['audiences', 'upload', 'aud1', '-'],
        'Kunden\nada@example.com\n',
        /plain-line input needs --type .*: its first line is "Kunden", which names no type/,
        /^say what each line holds, e\.g\. --type email/,
      ],
    ];
    for (const [argv, stdin, error, hint] of cases) {
      const reg = new HttpRegistry();
      const t = testContext({ transport: reg, stdin });
      try {
        const o = await outcome(t.run(argv));
        expect(o, argv.join(' ')).toEqual({
          code: 2,
          error: expect.stringMatching(error),
          hint: expect.stringMatching(hint),
        });
        expect(reg.requests).toEqual([]);
      } finally {
        t.cleanup();
      }
    }
  });
});

describe('where requests go (hostile-server)', () => {
  it('"//host" and "/\\host" paths, and credentials for another host, are refused: nothing is sent', async () => {
    const other = '127.0.0.1:9';
    await corpus([
      ...[`//${other}/x`, `/\\${other}/x`, `/\\/${other}/x`, `/\t/${other}/x`].map((p) => ({
        args: ['request', p],
        code: 2,
        re: /another host|control character/,
      })),
      ...['user', 'app', 'basic'].map((auth) => ({
        args: ['request', `http://${other}/x`, '--auth', auth],
        code: 2,
        re: /refusing to send credentials/,
      })),
    ]);
  });
});

describe('upload files in a folder that does not exist (hostile-input)', () => {
  it('--out and --rejects: exit 2 before anything is sent', async () => {
    fs.writeFileSync(path.join(dir, 'nofolder.txt'), 'a@example.com\nb@example.com\n');
    const upload = ['audiences', 'upload', 'aud1', path.join(dir, 'nofolder.txt'), '--type', 'email'];
    await corpus([
      {
        args: [...upload, '--rejects', path.join(dir, 'missing/r.csv')],
        code: 2,
        re: /the folder .*missing does not exist/,
      },
      {
        args: [...upload, '--dry-run', '--out', path.join(dir, 'missing/o.jsonl')],
        code: 2,
        re: /the folder .*missing does not exist/,
      },
    ]);
  });
});
