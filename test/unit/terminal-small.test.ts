// Small things of "a day in the terminal, third round" (issue 29 item 8 and item 4), through the
// test context: exact TTY and piped output.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { useTestContexts } from '../helpers/test-context.js';

const tc = useTestContexts();

describe('webhooks crc', () => {
  it('a number-like token is refused on purpose, and says so', async () => {
    const t = tc();
    for (const token of ['12345', 'true', 'null', '-1.5e+3']) {
      await expect(t.run(['webhooks', 'crc', token])).rejects.toMatchObject({
        exitCode: 2,
        message: `"${token}" is refused on purpose: a crc_token that is also a JSON value (a number, true, false, null) would make the answer a valid signature for a delivery with that body`,
      });
    }
    await expect(t.run(['webhooks', 'crc', 'a b'])).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^a crc_token is at most 256 letters/),
    });
    await t.run(['webhooks', 'crc', 'abc-123']);
    expect(t.stdout()).toMatch(/^\{"response_token":"sha256=/);
  });
});

describe('media upload', () => {
  function video(dir: string): string {
    const file = path.join(dir, 'clip.mp4');
    const head = Buffer.alloc(64);
    head.writeUInt32BE(24, 0); // the ftyp box's size: an mp4's first bytes, as upload checks them
    head.write('ftypisom', 4, 'latin1');
    fs.writeFileSync(file, head);
    return file;
  }
  function uploads(reg: HttpRegistry): HttpRegistry {
    return reg
      .register(route('POST', '/2/media/upload/initialize'), json({ data: { id: '77', media_key: '7_77' } }))
      .register(route('POST', '/2/media/upload/77/append'), json({}))
      .register(
        route('POST', '/2/media/upload/77/finalize'),
        json({
          data: {
            id: '77',
            media_key: '7_77',
            processing_info: { state: 'pending', check_after_secs: 1, progress_percent: 50 },
          },
        }),
      )
      .register(
        route('GET', '/2/media/upload'),
        json({
          data: {
            id: '77',
            media_key: '7_77',
            size: 64,
            processing_info: { state: 'succeeded', progress_percent: 100 },
          },
        }),
      );
  }

  it('the progress line ends with the outcome, not a stale "processing 50%"', async () => {
    const reg = uploads(new HttpRegistry());
    const t = tc({ transport: reg, tty: { stderr: true } });
    await t.run(['media', 'upload', video(t.configDir)]);
    const last = t.stderr().split('\r').at(-1)!;
    expect(last).toMatch(/100% 64 B\/64 B · processed\s*\n$/);
    expect(t.stderr()).toContain('processing 50%');
  });

  it('--add-to-library that uploads and then fails to add prints the media_key (exit 1, hint to add it)', async () => {
    const reg = uploads(new HttpRegistry());
    reg.register(
      route('POST', '/12/accounts/acct1/media_library'),
      json({ errors: [{ code: 'INVALID_PARAMETER', message: 'name is too long' }] }, 400),
    );
    const t = tc({ transport: reg, env: { XCTL_ACCOUNT_ID: 'acct1' } });
    const err = await t
      .run([
        'media',
        'upload',
        video(t.configDir),
        '--add-to-library',
        '--name',
        'Spring ad',
        '--fields',
        'media_key,library',
      ])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/^uploaded as 7_77, but not added to the media library: /),
      hint: expect.stringContaining(
        "the upload is kept: add it with `xctl ads media-library add --media-key 7_77 --name 'Spring ad'`",
      ),
    });
    expect(t.stdout()).toBe('7_77\tfailed\n');
  });
});

describe('audiences hash: a value, not a file', () => {
  const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

  it('a value where the file goes: the file does not exist (exit 2), and the hint gives --value', async () => {
    const t = tc();
    await expect(t.run(['audiences', 'hash', 'Ada@x.com'])).rejects.toMatchObject({
      exitCode: 2,
      message: '<file>: Ada@x.com does not exist',
      hint: 'to hash a value, give it with --value: xctl audiences hash --value Ada@x.com',
    });
  });

  it('--value hashes single values exactly as upload does (an email needs no --type)', async () => {
    const t = tc();
    await t.run(['audiences', 'hash', '--value', ' Ada@X.com ', '--value', 'bob@y.org']);
    expect(t.stdout()).toBe(`${sha('ada@x.com')}\n${sha('bob@y.org')}\n`);
    const p = tc();
    await p.run(['audiences', 'hash', '--value', '+1 415 555 0100', '--type', 'phone_number']);
    expect(p.stdout()).toBe(`${sha('14155550100')}\n`); // the platform's E.164 without the +
    await expect(p.run(['audiences', 'hash', '--value', '12345'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--value "12345": say what it is with --type (it is not an email)',
    });
    await expect(p.run(['audiences', 'hash', '--value', 'nope', '--type', 'email'])).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^--value "nope" is not a valid email: /),
    });
    await expect(p.run(['audiences', 'hash', 'f.csv', '--value', 'a@b.c'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--value hashes the values given: give no file with it',
    });
  });
});

describe("login as another user: the profile's ads account", () => {
  const accounts = json({
    data: [
      { id: 'a1', name: 'Alice Ads' },
      { id: 'a2', name: 'Alice \u001b[2J EU' },
    ],
    next_cursor: null,
  });

  it('warns and lists the accounts the new user can use; says nothing when the account is theirs', async () => {
    const { checkAdsAccount } = await import('../../src/commands/auth/login-common.js');
    const reg = new HttpRegistry().register(route('GET', '/12/accounts'), accounts, { times: 2 });
    const t = tc({ transport: reg });
    await checkAdsAccount(t.ctx, { user_id: '1', account_id: 'old9' }, { user_id: '2', screen_name: 'alice' });
    expect(t.stderr()).toBe(
      "warning: the profile's account_id old9 is not one of @alice's ads accounts: ads calls would fail with ACCOUNT_NOT_FOUND; @alice can use a1 (Alice Ads), a2 (Alice \\u001b[2J EU); e.g. `xctl config set account_id a1`\n",
    );
    const u = tc({ transport: reg });
    await checkAdsAccount(u.ctx, { user_id: '1', account_id: 'a2' }, { user_id: '2', screen_name: 'alice' });
    expect(u.stderr()).toBe('');
    const same = tc({ transport: new HttpRegistry() });
    await checkAdsAccount(same.ctx, { user_id: '2', account_id: 'old9' }, { user_id: '2', screen_name: 'alice' });
    expect(same.stderr()).toBe('');
  });
});

describe('did-you-mean for values (issue 29 item 7)', () => {
  it('an enum value one typo away, and an event type', async () => {
    const reg = new HttpRegistry();
    const t = tc({ transport: reg });
    await expect(
      t.run([
        'ads',
        'targeting',
        'add',
        '--line-item-id',
        'l1',
        '--targeting-type',
        'INTERESTS',
        '--targeting-value',
        '1',
      ]),
    ).rejects.toMatchObject({
      exitCode: 2,
      message:
        '--targeting-type must be a targeting type such as LOCATION, INTEREST, BROAD_KEYWORD, AGE (got INTERESTS)',
      hint: 'did you mean --targeting-type INTEREST?',
    });
    await expect(
      t.run([
        'ads',
        'campaigns',
        'create',
        '--funding-instrument-id',
        'f1',
        '--name',
        'x',
        '--entity-status',
        'PAUSD',
        '--daily-budget-amount-local-micro',
        '1000000',
      ]),
    ).rejects.toMatchObject({
      exitCode: 2,
      hint: 'did you mean --entity-status PAUSED?',
    });
    await expect(t.run(['sandbox', 'trigger', 'profile.update.bo'])).rejects.toMatchObject({
      exitCode: 2,
      message: `<event-type> must be one of the platform's event types (got "profile.update.bo")`,
      hint: expect.stringMatching(
        /^did you mean profile.update.bio, profile.update.geo or profile.update.url\?; event types: /,
      ),
    });
    expect(reg.requests).toEqual([]);
  });
});

describe('money in currency units (issue 29 item 5)', () => {
  const sent = (r: { query: URLSearchParams; body: string }) =>
    new URLSearchParams(r.body).get('daily_budget_amount_local_micro') ??
    r.query.get('daily_budget_amount_local_micro');

  it('--daily-budget 30.50 is 30500000 micros, read against the funding instrument currency', async () => {
    const reg = new HttpRegistry()
      .register(
        route('GET', '/12/accounts/acct1/funding_instruments/f1'),
        json({ data: { id: 'f1', currency: 'USD' } }),
      )
      .register(route('POST', '/12/accounts/acct1/campaigns'), json({ data: { id: 'c1', name: 'x' } }));
    const t = tc({ transport: reg });
    await t.run([
      'ads',
      'campaigns',
      'create',
      '--funding-instrument-id',
      'f1',
      '--name',
      'x',
      '--daily-budget',
      '30.50',
      '-o',
      'json',
    ]);
    expect(sent(reg.requests[1]!)).toBe('30500000');
    reg.verify();
  });

  it('refuses more decimals than the currency has, both spellings at once, and a non-amount (exit 2, nothing sent)', async () => {
    const usd = () =>
      new HttpRegistry().register(
        route('GET', '/12/accounts/acct1/funding_instruments'),
        json({ data: [{ id: 'f1', currency: 'USD' }] }),
        { times: 9 },
      );
    const jpy = new HttpRegistry().register(
      route('GET', '/12/accounts/acct1/funding_instruments/f2'),
      json({ data: { id: 'f2', currency: 'JPY' } }),
    );
    const base = ['ads', 'line-items', 'update', 'l1'];
    const t = tc({ transport: usd() });
    await expect(t.run([...base, '--bid', '1.505'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--bid 1.505: USD has 2 decimals',
    });
    await expect(t.run([...base, '--bid', '1,50'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--bid takes an amount such as 30 or 30.00 (got "1,50")',
    });
    await expect(t.run([...base, '--bid', '1.5', '--bid-amount-local-micro', '1500000'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--bid and --bid-amount-local-micro say the same: give one',
    });
    const j = tc({ transport: jpy });
    await expect(
      j.run(['ads', 'campaigns', 'create', '--funding-instrument-id', 'f2', '--name', 'x', '--daily-budget', '3000.5']),
    ).rejects.toMatchObject({ exitCode: 2, message: '--daily-budget 3000.5: JPY has no decimals' });
  });

  it('converts exactly, without floating point', async () => {
    const { toMicros } = await import('../../src/commands/ads/money-flags.js');
    expect(toMicros('1234567890.99', 2, 'USD', '--bid')).toBe('1234567890990000');
    expect(toMicros('0.1', 2, 'USD', '--bid')).toBe('100000');
    expect(toMicros('1.005', 3, 'KWD', '--bid')).toBe('1005000');
    expect(toMicros('3000', 0, 'JPY', '--bid')).toBe('3000000000');
  });

  // issue 46 item 9: a zero budget is refused as the platform refuses it; a huge amount is "too large"
  it('refuses --daily-budget 0 and says a huge amount is too large (exit 2, nothing sent but the currency read)', async () => {
    const usd = () =>
      new HttpRegistry().register(
        route('GET', '/12/accounts/acct1/funding_instruments/f1'),
        json({ data: { id: 'f1', currency: 'USD' } }),
      );
    const base = ['ads', 'campaigns', 'create', '--funding-instrument-id', 'f1', '--name', 'x'];
    for (const zero of ['0', '0.00']) {
      const reg = usd();
      await expect(tc({ transport: reg }).run([...base, '--daily-budget', zero])).rejects.toMatchObject({
        exitCode: 2,
        message: '--daily-budget-amount-local-micro must be more than 0 (the platform refuses a zero budget) (got "0")',
      });
      expect(reg.requests.map((r) => r.method)).toEqual(['GET']);
    }
    const reg = usd();
    await expect(tc({ transport: reg }).run([...base, '--daily-budget', '99999999999999.99'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--daily-budget 99999999999999.99 is too large: at most 9999999999 USD',
    });
    await expect(
      tc({ transport: new HttpRegistry() }).run([...base, '--daily-budget-amount-local-micro', '0']),
    ).rejects.toMatchObject({ exitCode: 2, message: /must be more than 0/ });
  });
});
