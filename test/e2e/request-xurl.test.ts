// `xctl request` as xurl and `gh api` users type it (issue 29 items 1 and 2), the real CLI against
// a real sandbox: a JSON object after -d, --paginate with --jq over every page, the --auth a 403
// "Unsupported Authentication" asks for, and --header-row beside request's own -H/--header.
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

const t = useTestSandbox();

describe('xctl request against the sandbox', () => {
  it('-d with a JSON object is the JSON body; a 403 names the --auth to pass', async () => {
    const add = await t.run([
      'request',
      '-X',
      'POST',
      '/2/tweets/search/stream/rules',
      '--auth',
      'app',
      '-d',
      '{"add":[{"value":"dogs","tag":"d"}]}',
      '--jq',
      '.data[0].value',
    ]);
    expect(add.stderr).toBe('');
    expect(add.stdout).toBe('dogs\n');
    const user = await t.run(['request', '/2/tweets/search/stream/rules']);
    expect(user.code).toBe(3);
    expect(user.stderr).toContain('hint: this endpoint takes OAuth 2.0 Application-Only: pass --auth app');
  });

  it('--paginate follows next_cursor and --jq runs over every page; --header-row with -H', async () => {
    const all = await t.run(['request', '--ads', '/12/accounts', '--jq', '.data[].id']);
    const ids = all.stdout.trim().split('\n');
    expect(ids.length).toBeGreaterThan(1);
    const one = await t.run(['request', '--ads', '/12/accounts?count=1', '--jq', '.data[].id']);
    expect(one.stdout.trim().split('\n')).toHaveLength(1);
    const paged = await t.run(['request', '--ads', '/12/accounts?count=1', '--paginate', '--jq', '.data[].id']);
    expect(paged.stderr).toBe('');
    expect(paged.stdout.trim().split('\n')).toEqual(ids);
    const csv = await t.run([
      'request',
      '--ads',
      '/12/accounts?count=1',
      '--paginate',
      '-H',
      'X-Note: a',
      '-o',
      'csv',
      '--fields',
      'id',
      '--header-row',
    ]);
    expect(csv.stdout).toBe(['id', ...ids, ''].join('\r\n'));
  });
});
