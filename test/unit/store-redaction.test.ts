import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Store, resolveCredentials } from '../../src/core/config.js';
import { IO, mask } from '../../src/core/io.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('profile store', () => {
  it('keeps the file at mode 0600 on every write, even after a chmod', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-store-'));
    dirs.push(dir);
    const store = await Store.open({ XCTL_CONFIG_DIR: dir });
    store.updateProfile('default', { api_key: 'k', api_secret: 's3cr3t-value' });
    expect(fs.statSync(store.path).mode & 0o777).toBe(0o600);
    fs.chmodSync(store.path, 0o644);
    store.updateProfile('default', { access_token: 't' });
    expect(fs.statSync(store.path).mode & 0o777).toBe(0o600);
    expect(store.profile('default')).toMatchObject({ api_key: 'k', access_token: 't' });
    store.updateProfile('default', { access_token: undefined });
    expect(store.profile('default')?.access_token).toBeUndefined();
  });

  it('environment overrides the profile', () => {
    const c = resolveCredentials('p', { api_key: 'a', api_secret: 'b' }, { XCTL_API_KEY: 'env-key' });
    expect(c.api_key).toBe('env-key');
    expect(c.source.api_key).toBe('env');
    expect(c.api_secret).toBe('b');
    expect(c.source.api_secret).toBe('profile');
  });
});

describe('redaction', () => {
  it('masks registered secrets (and their URL-encoded form) in everything written to stderr', () => {
    const err = new PassThrough();
    let text = '';
    err.on('data', (d) => (text += d));
    const io = new IO({ stdin: new PassThrough(), stdout: new PassThrough(), stderr: err });
    io.addSecret('AAAA/secret=value');
    io.err('token AAAA/secret=value and AAAA%2Fsecret%3Dvalue');
    expect(text).not.toContain('secret=value');
    expect(text).not.toContain('secret%3Dvalue');
    expect(text).toContain(mask('AAAA/secret=value'));
  });
  it('mask never shows more than 4 characters', () => {
    expect(mask('abcdefghijklmnop')).toBe('abcd…(16)');
    expect(mask('short')).toBe('****');
  });
});

describe('SECRET_FIELDS is the list redaction reads', () => {
  it('every field of it, in the profile, is masked once the command reads its credentials', async () => {
    const { SECRET_FIELDS } = await import('../../src/core/config.js');
    const { testContext } = await import('../helpers/test-context.js');
    const { redactSecrets } = await import('../../src/core/redact.js');
    const t = testContext({
      env: {
        XCTL_API_SECRET: undefined,
        XCTL_ACCESS_TOKEN: undefined,
        XCTL_ACCESS_TOKEN_SECRET: undefined,
        XCTL_BEARER_TOKEN: undefined,
      },
    });
    try {
      const values = Object.fromEntries(
        SECRET_FIELDS.map((f) => [f, `${f}-value-${Math.random().toString(36).slice(2)}`]),
      );
      await t.ctx.updateProfile({ api_key: 'test-api-key', ...values });
      await t.ctx.credentials();
      for (const [f, v] of Object.entries(values)) expect(redactSecrets(`x ${v} y`), f).not.toContain(v);
    } finally {
      t.cleanup();
    }
  });
});
