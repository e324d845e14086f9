// The profile store replaced the `conf` package: profiles written by earlier versions must keep
// working, in the same place and format. conf itself (a dev dependency) is the judge here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Conf from 'conf';
import { afterEach, describe, expect, it } from 'vitest';
import { Store, storeDir } from '../../src/core/config.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-store-compat-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** conf as the earlier versions opened it. */
const openConf = (cwd?: string) =>
  new Conf<Record<string, unknown>>({
    projectName: 'xctl',
    projectSuffix: '',
    configName: 'config',
    cwd,
    configFileMode: 0o600,
    clearInvalidConfig: false,
  });

describe('profile store, compatibility with the conf-based store', () => {
  it('finds the file where conf put it by default (XDG_CONFIG_HOME) and under XCTL_CONFIG_DIR', async () => {
    const xdg = tmp();
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = xdg;
    try {
      const conf = openConf();
      const store = await Store.open({ XDG_CONFIG_HOME: xdg });
      expect(store.path).toBe(conf.path);
      expect(store.path).toBe(path.join(xdg, 'xctl', 'config.json'));
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
    const dir = tmp();
    expect((await Store.open({ XCTL_CONFIG_DIR: dir })).path).toBe(openConf(dir).path);
    expect(storeDir({}, 'darwin')).toBe(path.join(os.homedir(), 'Library', 'Preferences', 'xctl'));
    expect(storeDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe(
      path.join('C:\\Users\\u\\AppData\\Roaming', 'xctl', 'Config'),
    );
  });

  it('reads profiles conf wrote, and writes byte for byte what conf would write', async () => {
    const dir = tmp();
    const conf = openConf(dir);
    conf.set('profiles', {
      default: { api_key: 'k', api_secret: 's' },
      other: { api_key: 'k2', bearer_token: 'b', bearer_key: 'k2' },
    });
    conf.set('default_profile', 'other');
    conf.set('later_setting', { nested: ['x'] });
    const store = await Store.open({ XCTL_CONFIG_DIR: dir });
    expect(store.defaultProfile).toBe('other');
    expect(store.profile('other')).toEqual({ api_key: 'k2', bearer_token: 'b', bearer_key: 'k2' });
    expect(store.profile('missing')).toBeUndefined();
    expect(store.profile('constructor')).toBeUndefined();

    store.updateProfile('default', { access_token: 't' });
    const ours = fs.readFileSync(store.path, 'utf8');
    conf.set('profiles', {
      ...(conf.get('profiles') as object),
      default: { api_key: 'k', api_secret: 's', access_token: 't' },
    });
    expect(ours).toBe(fs.readFileSync(conf.path, 'utf8'));
    // keys this version does not know survive its writes
    expect(JSON.parse(ours).later_setting).toEqual({ nested: ['x'] });

    expect(store.removeProfile('other')).toBe(true);
    expect(store.removeProfile('other')).toBe(false);
    expect(store.defaultProfile).toBe('default');
    expect(openConf(dir).get('profiles')).toEqual({ default: { api_key: 'k', api_secret: 's', access_token: 't' } });
    expect(openConf(dir).get('default_profile')).toBeUndefined();
  });

  it('writes atomically at 0600 (no temporary file left), creating the folder 0700', async () => {
    const dir = path.join(tmp(), 'nested', 'xctl');
    const store = await Store.open({ XCTL_CONFIG_DIR: dir });
    expect(fs.existsSync(dir)).toBe(false); // reading creates nothing
    expect(store.profiles()).toEqual({});
    const old = process.umask(0);
    try {
      store.updateProfile('p', { api_key: 'k' });
    } finally {
      process.umask(old);
    }
    expect(fs.statSync(store.path).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
    store.setDefaultProfile('p');
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
    expect(JSON.parse(fs.readFileSync(store.path, 'utf8'))).toEqual({
      profiles: { p: { api_key: 'k' } },
      default_profile: 'p',
    });
  });

  it('names the file when it is not JSON, and leaves it as it was', async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const store = await Store.open({ XCTL_CONFIG_DIR: dir });
    expect(() => store.profiles()).toThrow(/config\.json is not valid JSON/);
    expect(() => store.updateProfile('p', { api_key: 'k' })).toThrow(/not valid JSON/);
    expect(fs.readFileSync(store.path, 'utf8')).toBe('{"profiles": {');
    fs.writeFileSync(store.path, '[1]');
    expect(() => store.defaultProfile).toThrow(/does not hold a JSON object/);
  });
});
