// HOME unset and no folder named (issue 33): the store is empty and writes nothing, the bearer
// obtained from the environment's key and secret is used but never cached (no lock file either),
// and the folders sync and upload default to are an error naming --state-dir.
import { describe, expect, it } from 'vitest';
import { configDirUnnamed, Store } from '../../src/core/config.js';
import { UsageError } from '../../src/core/errors.js';
import { webhooksList } from '../../src/commands/webhooks/list.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { testContext } from '../helpers/test-context.js';

describe('a config folder nobody named', () => {
  it('is HOME unset with neither XCTL_CONFIG_DIR nor XDG_CONFIG_HOME (macOS: XCTL_CONFIG_DIR only); never on Windows', () => {
    expect(configDirUnnamed({}, 'linux')).toBe(true);
    expect(configDirUnnamed({ HOME: '' }, 'linux')).toBe(true);
    expect(configDirUnnamed({ HOME: '/home/a' }, 'linux')).toBe(false);
    expect(configDirUnnamed({ XCTL_CONFIG_DIR: '/c' }, 'linux')).toBe(false);
    expect(configDirUnnamed({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe(false);
    expect(configDirUnnamed({ XDG_CONFIG_HOME: '/x' }, 'darwin')).toBe(true);
    expect(configDirUnnamed({}, 'win32')).toBe(false);
  });

  it('the store reads as empty, refuses writes, and names --state-dir for state folders', async () => {
    if (process.platform === 'win32') return;
    const store = await Store.open({ XCTL_API_KEY: 'k' });
    expect(store.unnamed).toBe(true);
    expect(store.rawProfiles()).toEqual({});
    expect(() => store.setDefaultProfile('other')).toThrow(
      'HOME is not set and no folder was named for the profile store: nothing was written',
    );
    let err: unknown;
    try {
      store.folder('the sync snapshot');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).flag).toBe('--state-dir');
    expect((err as UsageError).message).toBe(
      'HOME is not set and no folder was named for the sync snapshot: nothing was sent',
    );
  });

  it('a bearer from the key and secret in the environment: obtained, used, not cached (said so)', async () => {
    if (process.platform === 'win32') return;
    const reg = new HttpRegistry();
    reg.register(route('POST', '/oauth2/token'), json({ token_type: 'bearer', access_token: 'AAAA-fresh-bearer' }));
    reg.register(route('GET', '/2/webhooks'), json({ data: [] }));
    const t = testContext({ transport: reg, env: { XCTL_CONFIG_DIR: undefined, XCTL_BEARER_TOKEN: undefined } });
    try {
      await webhooksList(t.ctx, {});
      expect(t.stderr()).toBe(
        'note: the bearer token is not cached: HOME is not set (set XCTL_CONFIG_DIR to cache it)\n',
      );
      expect(reg.requests[1]!.headers.authorization).toBe('Bearer AAAA-fresh-bearer');
      reg.verify();
    } finally {
      t.cleanup();
    }
  });
});
