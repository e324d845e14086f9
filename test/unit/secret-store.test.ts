// Where secrets go, in-process: the preference, the file fallback without a keychain (at once,
// without loading the native module), `auth migrate` and `config set secret_storage` input rules,
// the secret field list, and placement with a keychain stand-in.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testContext } from '../helpers/test-context.js';
import { SECRET_FIELDS, type Profile } from '../../src/core/config.js';
import {
  KEYRING_FIELDS,
  preference,
  probeAsync,
  probeSync,
  type Keyring,
  type Secrets,
} from '../../src/core/secret-store.js';
import { ProfileSecrets } from '../../src/core/profile-secrets.js';
import { authMigrate } from '../../src/commands/auth/migrate.js';
import { UsageError, XctlError } from '../../src/core/errors.js';

/** A keychain held in a Map, put where the probe's answer goes. */
function withFakeKeyring(ps: ProfileSecrets): Map<string, Secrets> {
  const m = new Map<string, Secrets>();
  const k: Keyring = {
    read: (a) => (m.has(a) ? { ...m.get(a)! } : undefined),
    write: (a, s) => void m.set(a, { ...s }),
    remove: (a) => void m.delete(a),
  };
  (ps as unknown as { probe: unknown }).probe = { keyring: k };
  return m;
}

describe('secret storage choice', () => {
  it('the keychain holds exactly the fields the store calls secrets', () => {
    expect([...KEYRING_FIELDS].sort()).toEqual([...SECRET_FIELDS].sort());
  });

  it('XCTL_SECRET_STORAGE wins over the profile setting; auto by default; anything else is refused', () => {
    expect(preference({})).toBe('auto');
    expect(preference({}, 'file')).toBe('file');
    expect(preference({ XCTL_SECRET_STORAGE: 'keyring' }, 'file')).toBe('keyring');
    expect(() => preference({ XCTL_SECRET_STORAGE: 'vault' })).toThrow(/keyring, file or auto/);
  });

  it('without a D-Bus session there is no keychain on Linux, known at once', async () => {
    const started = Date.now();
    expect(probeSync({}, 'x', 'linux')).toEqual({
      why: 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset): no Secret Service',
    });
    expect((await probeAsync({}, 'x', 'linux')).why).toMatch(/no D-Bus session bus/);
    expect(probeSync({}, 'x', 'aix').why).toMatch(/no keychain support on aix/);
    expect(Date.now() - started).toBeLessThan(200);
  });
});

describe('placement (a keychain stand-in)', () => {
  const secrets = { api_secret: 'S1', bearer_token: 'B1' };
  it('a new profile goes to the keychain in auto mode; the file keeps the rest and the mark', () => {
    const ps = new ProfileSecrets('/x/config.json', {});
    const kc = withFakeKeyring(ps);
    const file = ps.split('p', { api_key: 'K', ...secrets }, undefined);
    expect(file).toEqual({ api_key: 'K', secrets_in: 'keyring' });
    expect(kc.get('p@/x/config.json')).toEqual(secrets);
    expect(ps.fill('p', file)).toEqual({ api_key: 'K', secrets_in: 'keyring', ...secrets });
  });

  it('secrets already in the file stay there; file preference keeps new ones there', () => {
    const ps = new ProfileSecrets('/x/config.json', {});
    const kc = withFakeKeyring(ps);
    const before: Profile = { api_key: 'K', api_secret: 'old' };
    expect(ps.split('p', { ...before, bearer_token: 'B' }, before)).toEqual({
      api_key: 'K',
      api_secret: 'old',
      bearer_token: 'B',
    });
    expect(ps.split('q', { api_key: 'K', secret_storage: 'file', ...secrets }, undefined)).toEqual({
      api_key: 'K',
      secret_storage: 'file',
      ...secrets,
    });
    expect(kc.size).toBe(0);
  });

  it('migrate writes and reads back before the file gives up the secrets; back to the file removes the entry after', () => {
    const ps = new ProfileSecrets('/x/config.json', {});
    const kc = withFakeKeyring(ps);
    const m = ps.migrate('p', { api_key: 'K', ...secrets }, 'keyring');
    expect(m).toEqual({ file: { api_key: 'K', secrets_in: 'keyring' } });
    expect(kc.get('p@/x/config.json')).toEqual(secrets);
    const back = ps.migrate('p', m.file, 'file');
    expect(back.file).toEqual({ api_key: 'K', ...secrets });
    expect(kc.size).toBe(1);
    back.after!();
    expect(kc.size).toBe(0);
  });

  it('a keychain that does not keep what was written moves nothing', () => {
    const ps = new ProfileSecrets('/x/config.json', {});
    const kc = withFakeKeyring(ps);
    (ps as unknown as { probe: { keyring: Keyring } }).probe.keyring.write = () => {};
    expect(() => ps.migrate('p', { api_key: 'K', ...secrets }, 'keyring')).toThrow(
      /did not keep what was written: nothing was moved/,
    );
    expect(kc.size).toBe(0);
  });

  it('a keyring profile whose keychain cannot be used is a clear error', () => {
    const ps = new ProfileSecrets('/x/config.json', {});
    (ps as unknown as { probe: unknown }).probe = { why: 'locked' };
    expect(() => ps.fill('p', { secrets_in: 'keyring' })).toThrow(XctlError);
    expect(() => ps.fill('p', { secrets_in: 'keyring' })).toThrow(
      /profile "p" keeps its secrets in the OS keychain, which cannot be used now: locked/,
    );
  });
});

describe('auth migrate and config set secret_storage (in-process, no keychain)', () => {
  it('refuses a bad --to, an unknown profile, and a keychain that is not there (the file is left as it was)', async () => {
    const t = testContext({ env: { XCTL_API_SECRET: undefined } });
    await expect(authMigrate(t.ctx, { to: 'vault' })).rejects.toThrow(UsageError);
    await expect(authMigrate(t.ctx, { to: 'keyring' })).rejects.toThrow(/does not exist/);
    await t.run(['auth', 'set', '--api-key', 'K']);
    const store = path.join(t.configDir, 'config.json');
    const cfg = JSON.parse(fs.readFileSync(store, 'utf8'));
    cfg.profiles.default.api_secret = 'file-secret';
    fs.writeFileSync(store, JSON.stringify(cfg));
    await expect(authMigrate(t.ctx, { to: 'keyring' })).rejects.toThrow(
      /the OS keychain cannot be used: no D-Bus session bus .*; nothing was moved/,
    );
    expect(JSON.parse(fs.readFileSync(store, 'utf8')).profiles.default).toEqual({
      api_key: 'K',
      api_secret: 'file-secret',
    });
    await authMigrate(t.ctx, { to: 'file' });
    expect(t.stderr()).toMatch(/its secrets are in the file already/);
    await expect(t.run(['config', 'set', 'secret_storage', 'vault'])).rejects.toThrow(/keyring, file or auto/);
    t.cleanup();
  });
});
