// The store's place (issue 25 item 1): every folder above the config folder is checked, and a
// login sends its code where it started even when the store's base_url changes meanwhile.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { Store } from '../../src/core/config.js';
import { authLogin } from '../../src/commands/auth/login.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { decideOnOAuth2Page } from '../helpers/oauth-client.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-place-'));
const isRoot = process.getuid?.() === 0;
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function place(name: string, parentMode: number): string {
  const parent = path.join(root, name);
  fs.mkdirSync(parent);
  fs.chmodSync(parent, parentMode);
  const dir = path.join(parent, 'xctl');
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe('the folders above the config folder', () => {
  it('refuses a config folder under a folder others can write to (not sticky)', async () => {
    const dir = place('open', 0o777);
    await expect(Store.open({ XCTL_CONFIG_DIR: dir })).rejects.toThrow(
      /a folder above it, can be written by others \(mode 777, not sticky\)/,
    );
    // Even when the config folder does not exist yet (created on first write).
    await expect(Store.open({ XCTL_CONFIG_DIR: path.join(dir, 'later', 'deeper') })).rejects.toThrow(
      /can be written by others/,
    );
  });

  it('accepts a sticky shared folder (like /tmp) and a folder only its owner writes', async () => {
    await expect(Store.open({ XCTL_CONFIG_DIR: place('sticky', 0o1777) })).resolves.toBeInstanceOf(Store);
    await expect(Store.open({ XCTL_CONFIG_DIR: place('mine', 0o755) })).resolves.toBeInstanceOf(Store);
  });

  it('refuses a folder above that belongs to another user', async (t) => {
    if (!isRoot) return t.skip('needs root to give a folder to another uid');
    const dir = place('theirs', 0o755);
    fs.chownSync(path.dirname(dir), 4242, 4242);
    await expect(Store.open({ XCTL_CONFIG_DIR: dir })).rejects.toThrow(/belongs to another user \(uid 4242\)/);
  });

  it('follows a symbolic link to where it leads: a link into an open folder is refused', async () => {
    const target = place('open-target', 0o777);
    const safe = place('safe', 0o700);
    const link = path.join(safe, 'link');
    fs.symlinkSync(target, link);
    await expect(Store.open({ XCTL_CONFIG_DIR: link })).rejects.toThrow(
      /open-target, a folder above it, can be written by others/,
    );
  });
});

describe('a login reads the base URL once', () => {
  let sb: Sandbox;
  let evil: http.Server;
  const stolen: string[] = [];
  beforeAll(async () => {
    sb = await startSandbox({ clock: 'manual' });
    evil = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        stolen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''} ${body}`);
        res.writeHead(500).end();
      });
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await sb.close();
    await new Promise((r) => evil.close(r));
  });

  it('sends the code, verifier and client secret to the base URL the login started with', async () => {
    const dir = place('login', 0o700);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.resume();
    stderr.resume();
    const ctx = new Context({
      streams: { stdin: new PassThrough(), stdout, stderr },
      env: { XCTL_CONFIG_DIR: dir, XCTL_CLIENT_ID: sb.seed.client_id, XCTL_CLIENT_SECRET: sb.seed.client_secret },
      globals: { json: true },
    });
    await ctx.updateProfile({ base_url: sb.baseUrl });
    const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    await authLogin(
      ctx,
      { oauth2: true, scopes: 'tweet.read users.read', callbackPort: '0', timeout: '20s' },
      {
        openUrl: async (url) => {
          // While the user is at the browser, the store changes under the running login.
          (await Store.open({ XCTL_CONFIG_DIR: dir })).updateProfile('default', { base_url: evilUrl });
          const page = await decideOnOAuth2Page(url, 'allow', 'sandbox_alice');
          await fetch(page.location!);
        },
      },
    );
    expect(stolen).toEqual([]);
    expect((await ctx.profile())?.oauth2_screen_name).toBe('sandbox_alice');
  });
});

describe('profile names (issue 25 item 9)', () => {
  it('refuses names an object, a file system or a shell would take for something else', async () => {
    const { checkProfileName } = await import('../../src/core/config.js');
    for (const bad of [
      '__proto__',
      'constructor',
      'prototype',
      'hasOwnProperty',
      '.',
      '..',
      '.hidden',
      '-rf',
      '--help',
    ]) {
      expect(() => checkProfileName(bad), bad).toThrow(/cannot be a profile name|profile names use/);
    }
    for (const good of ['default', 'ci_2', 'Prod.eu-1', '_private', 'proto']) expect(checkProfileName(good)).toBe(good);
  });
});
