// Issue 46 items 7-8: a profile whose secrets are in an OS keychain out of reach says so (not "no
// ads account given", not "no usable credentials"), and with no profile selected (the default
// one does not exist; `sandbox start --configure` wrote "sandbox") auth status shows no phantom
// "default" row and names the profile that exists and how to select it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_CREDENTIALS, useTestContexts } from '../helpers/test-context.js';
import { outcome } from '../helpers/outcome.js';

const tc = useTestContexts();
/** No credentials from the environment and no D-Bus session: only the store speaks. */
const NO_ENV = Object.fromEntries(
  [...Object.keys(TEST_CREDENTIALS), 'DBUS_SESSION_BUS_ADDRESS'].map((k) => [k, undefined]),
);

function withStore(doc: unknown, o: { tty?: boolean } = {}) {
  const t = tc({ env: NO_ENV, tty: o.tty });
  fs.writeFileSync(path.join(t.configDir, 'config.json'), JSON.stringify(doc), { mode: 0o600 });
  return t;
}

const sandboxProfile = {
  base_url: 'http://127.0.0.1:9',
  api_key: 'k'.repeat(25),
  api_secret: 's'.repeat(50),
  access_token: '2244994945-token',
  access_token_secret: 't'.repeat(45),
  screen_name: 'xctl_dev',
  user_id: '2244994945',
  account_id: '18ce54d4x5t',
};

describe('no profile selected, one exists (issue 46 item 8)', () => {
  it('auth status: no phantom "default" row; the error names "sandbox" and `auth profiles use sandbox`', async () => {
    const t = withStore({ profiles: { sandbox: sandboxProfile } });
    const o = await outcome(t.run(['auth', 'status', '-o', 'tsv', '--fields', 'profile,selected']));
    expect(t.stdout()).toBe('sandbox\tfalse\n');
    expect(o).toEqual({
      code: 1,
      error: 'no profile is selected ("default" does not exist)',
      hint: 'the profile "sandbox" exists: `xctl auth profiles use sandbox` (or --profile sandbox)',
    });
  });

  it('an ads command says the same instead of only "no ads account given"', async () => {
    const t = withStore({ profiles: { sandbox: sandboxProfile } });
    const o = await outcome(t.run(['ads', 'campaigns', 'list']));
    expect(o.code).toBe(2);
    expect(o.error).toBe('no ads account given: no profile is selected ("default" does not exist)');
    expect(o.hint).toContain('`xctl auth profiles use sandbox`');
  });
});

describe('secrets in an OS keychain out of reach (issue 46 item 7)', () => {
  const inKeyring = {
    profiles: {
      default: {
        base_url: 'http://127.0.0.1:9',
        account_id: '18ce54d4x5t',
        api_key: 'k'.repeat(25),
        secrets_in: 'keyring',
      },
    },
  };

  it('ads campaigns list: the keychain is named, not a missing account', async () => {
    const t = withStore(inKeyring);
    const o = await outcome(t.run(['ads', 'campaigns', 'list']));
    expect(o.code).toBe(1);
    expect(o.error).toMatch(/^profile "default" keeps its secrets in the OS keychain, which cannot be used now: /);
    expect(o.hint).toMatch(/unlock the keychain/);
  });

  it('auth status: the same story and how to reach the keychain, not "has no usable credentials"', async () => {
    const t = withStore(inKeyring);
    const o = await outcome(t.run(['auth', 'status', '-o', 'tsv', '--fields', 'profile,secrets']));
    expect(t.stdout()).toBe('default\tkeyring (unreachable)\n');
    expect(o.code).toBe(1);
    expect(o.error).toMatch(/^profile "default" keeps its secrets in the OS keychain, which cannot be used now: /);
    expect(o.hint).toMatch(/unlock the keychain/);
  });
});
