// `xctl config get|set|unset|list|path` tested where the verbs live: flags -> options through runF,
// the run functions' exact stdout and stderr, and every refusal (exit 2, the store untouched).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configGet, register as registerGet } from '../../../src/commands/config/get.js';
import { configList } from '../../../src/commands/config/list.js';
import { configPath } from '../../../src/commands/config/path.js';
import { configSet, register as registerSet } from '../../../src/commands/config/set.js';
import { configUnset, register as registerUnset } from '../../../src/commands/config/unset.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { outcome } from '../../helpers/outcome.js';
import { useTestContexts, type TestContext } from '../../helpers/test-context.js';

const ctxOf = useTestContexts();
const storeFile = (t: TestContext) => path.join(t.configDir, 'config.json');
const NOT_FROM_ENV = { XCTL_ACCOUNT_ID: undefined };

describe('config: flags -> options (runF)', () => {
  it("positionals become the key and the value; a missing one is commander's exit 2", async () => {
    const t = ctxOf();
    expect(await t.optionsOf(registerGet, ['get', 'output'])).toEqual({ key: 'output' });
    expect(await t.optionsOf(registerSet, ['set', 'output', 'json'])).toEqual({ key: 'output', value: 'json' });
    expect(await t.optionsOf(registerUnset, ['unset', 'max_wait'])).toEqual({ key: 'max_wait' });
    expect(await outcome(t.optionsOf(registerSet, ['set', 'output']))).toEqual({
      code: 2,
      error: "missing required argument 'value'",
    });
  });
});

describe('config set, get, unset', () => {
  it('set stores and says so; get prints the value alone on stdout', async () => {
    const t = ctxOf({ env: NOT_FROM_ENV });
    await configSet(t.ctx, { key: 'account_id', value: 'abc123' });
    expect(t.stderr()).toBe('account_id = abc123 (profile "default")\n');
    await configGet(t.ctx, { key: 'account_id' });
    expect(t.stdout()).toBe('abc123\n');
    expect(JSON.parse(fs.readFileSync(storeFile(t), 'utf8')).profiles.default).toEqual({ account_id: 'abc123' });
    expect(await outcome(configGet(t.ctx, { key: 'max_wait' }))).toEqual({
      code: 2,
      error: '"max_wait" is not set in profile "default"',
    });
  });

  it('a wrong key suggests the closest and lists every setting; a wrong value shows an example (hints)', async () => {
    const t = ctxOf();
    const typo = await outcome(configSet(t.ctx, { key: 'acount_id', value: 'abc' }));
    expect(typo.code).toBe(2);
    expect(typo.error).toMatch(
      /^unknown setting "acount_id" \(did you mean account_id\?\); settings: base_url, account_id, output, max_wait/,
    );
    expect(typo.hint).toMatch(/^the settings: base_url \(API base URL .*\); account_id \(default ads account id/);
    const cred = await outcome(configSet(t.ctx, { key: 'api_secret', value: 'x' }));
    expect(cred.hint).toBe('credentials are set with `xctl auth set` (secrets on stdin)');
    expect(await outcome(configSet(t.ctx, { key: 'output', value: 'xml' }))).toEqual({
      code: 2,
      error: 'output must be table, json, jsonl, tsv or csv (got "xml")',
      hint: 'output: default output format: table, json, jsonl, tsv or csv, e.g. `xctl config set output json`',
    });
    const wait = await outcome(configSet(t.ctx, { key: 'max_wait', value: '15m' }));
    expect(wait.hint).toMatch(/^max_wait: .*e\.g\. `xctl config set max_wait 900`$/);
    const http = await outcome(configSet(t.ctx, { key: 'base_url', value: 'http://example.com' }));
    expect(http.code).toBe(2);
    expect(http.error).toMatch(/plain http is refused for example\.com/);
    expect(http.hint).toMatch(/^base_url: .*https for any host but loopback$/);
    const notUrl = await outcome(configSet(t.ctx, { key: 'base_url', value: 'notaurl' }));
    expect([notUrl.code, notUrl.error]).toEqual([2, expect.stringMatching(/base_url must be an http\(s\) URL/)]);
    expect(await outcome(configGet(t.ctx, { key: 'nosuchkey' }))).toMatchObject({
      code: 2,
      error: expect.stringMatching(/^unknown setting "nosuchkey"/),
    });
    expect(fs.existsSync(storeFile(t))).toBe(false);
  });

  it('unset says what it removed, or that nothing was set, and what still applies (hints)', async () => {
    const t = ctxOf({ env: { XCTL_ACCOUNT_ID: 'from-env' } });
    await configSet(t.ctx, { key: 'account_id', value: 'abc123' });
    const first = ctxOf({ env: { XCTL_CONFIG_DIR: t.configDir, XCTL_ACCOUNT_ID: 'from-env' } });
    await configUnset(first.ctx, { key: 'account_id' });
    expect(first.stderr()).toBe(
      'removed account_id from profile "default" (it was abc123)\n' +
        'XCTL_ACCOUNT_ID is set in the environment and still applies\n',
    );
    const again = ctxOf({ env: { XCTL_CONFIG_DIR: t.configDir, ...NOT_FROM_ENV } });
    await configUnset(again.ctx, { key: 'account_id' });
    expect(again.stderr()).toBe('account_id was not set in profile "default": nothing to remove\n');
  });
});

describe('config list and path', () => {
  it('list: every setting with what it does (tsv piped), a proxy password redacted', async () => {
    const t = ctxOf({ env: NOT_FROM_ENV, globals: { output: 'tsv' } });
    await configSet(t.ctx, { key: 'base_url', value: 'http://proxyuser:pr0xy-pa55word@127.0.0.1:9' });
    await configList(t.ctx);
    const rows = t
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t').slice(0, 2));
    expect(rows).toEqual([
      ['base_url', 'http://[redacted]@127.0.0.1:9'],
      ['account_id', ''],
      ['output', ''],
      ['max_wait', ''],
      ['secret_storage', ''],
    ]);
    expect(t.stdout() + t.stderr()).not.toContain('pr0xy-pa55word');
  });

  it('path: the store file; none without HOME or a named folder (exit 2 with a hint)', async () => {
    const t = ctxOf();
    await configPath(t.ctx);
    expect(t.stdout()).toBe(`${storeFile(t)}\n`);
    const none = ctxOf({ env: { XCTL_CONFIG_DIR: undefined, HOME: undefined, XDG_CONFIG_HOME: undefined } });
    expect(await outcome(configPath(none.ctx))).toEqual({
      code: 2,
      error: 'HOME is not set and no folder was named for the profile store: there is no store file',
      hint: 'set XCTL_CONFIG_DIR (or HOME) to the folder to keep it in',
    });
  });
});

describe('a base URL with user:password@ (hostile-server)', () => {
  it('is redacted in config set, auth status and the --verbose trace of a request that is sent', async () => {
    const reg = new HttpRegistry().register(route('GET', '/2/x'), json({ data: {} }));
    const withCreds = 'http://proxyuser:pr0xy-pa55word@127.0.0.1:9';
    const t = ctxOf({ env: { XCTL_BASE_URL: undefined }, transport: reg });
    await t.run(['config', 'set', 'base_url', withCreds]);
    await t.run(['auth', 'status']);
    await t.run(['request', '/2/x', '--verbose']);
    reg.verify();
    expect(t.stdout() + t.stderr()).not.toContain('pr0xy-pa55word');
    expect(t.stderr()).toMatch(/> GET http:\/\/\[redacted\]@127\.0\.0\.1:9\/2\/x/);
  });
});
