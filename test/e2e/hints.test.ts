// Issue 20 items 15 and 16 against the sandbox: the errors that came without a hint
// (webhook create's CrcValidationFailed, DuplicateUrlFailed and WebhookLimitExceeded, `config
// set`, audience column detection), `config unset` saying what it removed, and `-v` showing the
// body of a failing answer.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';
import { appBearer, startReceiver } from '../helpers/receiver.js';

let t: TestSandbox;
const dirs: string[] = [];
beforeAll(async () => {
  t = await startTestSandbox();
  t.env.XCTL_BEARER_TOKEN = await appBearer(t.sb.baseUrl, t.sb.seed.api_key, t.sb.seed.api_secret);
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe("webhooks create: the service's failure names get a hint", () => {
  it('CrcValidationFailed, DuplicateUrlFailed, WebhookLimitExceeded', async () => {
    const rx = await startReceiver(t.sb.seed.api_secret);
    try {
      rx.mode = 'wrong';
      const crc = await t.run(['webhooks', 'create', rx.url]);
      expect(crc.code).toBe(1);
      expect(crc.stderr).toMatch(/code CrcValidationFailed/);
      expect(crc.stderr).toMatch(
        /hint: the URL did not answer the challenge: .*`xctl webhooks crc T` prints the expected answer/,
      );
      rx.mode = 'ok';
      expect((await t.run(['webhooks', 'create', rx.url])).code).toBe(0);
      const dup = await t.run(['webhooks', 'create', rx.url]);
      expect(dup.code).toBe(1);
      expect(dup.stderr).toMatch(/code DuplicateUrlFailed/);
      expect(dup.stderr).toMatch(
        /hint: this app already has a webhook with this URL: `xctl webhooks list` shows its id/,
      );
      for (let i = 1; i < 5; i++) expect((await t.run(['webhooks', 'create', `${rx.url}${i}`])).code).toBe(0);
      const lim = await t.run(['webhooks', 'create', `${rx.url}x`]);
      expect(lim.code).toBe(1);
      expect(lim.stderr).toMatch(/code WebhookLimitExceeded/);
      expect(lim.stderr).toMatch(
        /hint: the app has as many webhooks as it may: delete one it no longer uses \(`xctl webhooks list`, then `xctl webhooks delete ID`\)/,
      );
    } finally {
      await rx.close();
    }
  });
});

describe('config set and unset', () => {
  it('a wrong key suggests the closest and lists every setting; a wrong value shows an example', async () => {
    const typo = await t.run(['config', 'set', 'acount_id', 'abc']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /error: unknown setting "acount_id" \(did you mean account_id\?\); settings: base_url, account_id, output, max_wait/,
    );
    expect(typo.stderr).toMatch(
      /hint: the settings: base_url \(API base URL .*\); account_id \(default ads account id/,
    );
    const cred = await t.run(['config', 'set', 'api_secret', 'x']);
    expect(cred.stderr).toMatch(/hint: credentials are set with `xctl auth set`/);
    const output = await t.run(['config', 'set', 'output', 'xml']);
    expect(output.code).toBe(2);
    expect(output.stderr).toMatch(/error: output must be table, json, jsonl, tsv or csv \(got "xml"\)/);
    expect(output.stderr).toMatch(
      /hint: output: default output format: table, json, jsonl, tsv or csv, e\.g\. `xctl config set output json`/,
    );
    const wait = await t.run(['config', 'set', 'max_wait', '15m']);
    expect(wait.stderr).toMatch(/hint: max_wait: .*e\.g\. `xctl config set max_wait 900`/);
    const http = await t.run(['config', 'set', 'base_url', 'http://example.com']);
    expect(http.code).toBe(2);
    expect(http.stderr).toMatch(/plain http is refused for example\.com/);
    expect(http.stderr).toMatch(/hint: base_url: .*https for any host but loopback/);
  });

  it('unset says what it removed, or that nothing was set, and what still applies', async () => {
    const env = { XCTL_CONFIG_DIR: fresh() };
    expect((await t.run(['config', 'set', 'account_id', 'abc123'], { env })).code).toBe(0);
    const first = await t.run(['config', 'unset', 'account_id'], { env });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(
      'removed account_id from profile "default" (it was abc123)\nXCTL_ACCOUNT_ID is set in the environment and still applies\n',
    );
    const again = await t.run(['config', 'unset', 'account_id'], { env: { ...env, XCTL_ACCOUNT_ID: undefined } });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('account_id was not set in profile "default": nothing to remove\n');
  });
});

function fresh(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

describe('audiences upload: column detection shows the header it found', () => {
  it('a header naming no type, several unnamed columns, an unnamed plain line', async () => {
    const aud = JSON.parse((await t.run(['audiences', 'create', '--name', 'Hints', '-o', 'json'])).stdout).id as string;
    const dir = fresh();
    const file = (name: string, text: string) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, text);
      return f;
    };
    // ("E-Mail Address" is read as email since issue 24: a header in another language is not)
    const named = await t.run(['audiences', 'upload', aud, file('a.csv', 'Name,Kontakt Mail\nAda,ada@example.com\n')]);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(
      /error: cannot tell which column holds what: the first row \("Name", "Kontakt Mail"\) names no identifier type/,
    );
    expect(named.stderr).toMatch(/hint: pass --column TYPE=HEADER .*e\.g\. --column email="Kontakt Mail"/);
    expect(named.stderr).toMatch(/email, phone_number, handle, twitter_id, device_id, partner_user_id/);
    const unnamed = await t.run([
      'audiences',
      'upload',
      aud,
      file('b.csv', 'ada@example.com,Ada\ngrace@example.com,Grace\n'),
      '--type',
      'email',
    ]);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(
      /the input has 2 columns and its first row \("ada@example\.com", "Ada"\) names none of them/,
    );
    expect(unnamed.stderr).toMatch(/hint: --column needs a header row/);
    const lines = await t.run(['audiences', 'upload', aud, '-'], { input: 'Kunden\nada@example.com\n' });
    expect(lines.code).toBe(2);
    expect(lines.stderr).toMatch(/plain-line input needs --type .*: its first line is "Kunden", which names no type/);
    expect(lines.stderr).toMatch(/hint: say what each line holds, e\.g\. --type email/);
  });
});

describe('-v shows the body of a failing answer', () => {
  it("the service's error body after the response headers, never a secret", async () => {
    const r = await t.run(['ads', 'campaigns', 'get', 'nosuch', '-v']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/< 404 \(\d+ ms\)\n[\s\S]*< body: \{"errors":\[\{"code":"NOT_FOUND"/);
    const ok = await t.run(['ads', 'campaigns', 'list', '-v']);
    expect(ok.code).toBe(0);
    expect(ok.stderr).not.toMatch(/< body:/); // a success's body is the output
    for (const s of [t.sb.seed.access_token, t.sb.seed.access_token_secret, t.sb.seed.api_secret])
      expect(r.stderr + ok.stderr).not.toContain(s);
  });
});
