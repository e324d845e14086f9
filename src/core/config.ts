// The profile store (conf, file mode 0600) and credential precedence: environment over profile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError, XctlError } from './errors.js';
import { withFileLockSync } from './file-lock.js';
import { checkStorePlace } from './store-guard.js';

export interface Profile {
  api_key?: string;
  api_secret?: string;
  access_token?: string;
  access_token_secret?: string;
  user_id?: string;
  screen_name?: string;
  bearer_token?: string;
  /** The api_key the cached bearer belongs to. */
  bearer_key?: string;
  /** OAuth 2.0 app credentials (the Client ID, not the API key; a secret for confidential clients). */
  client_id?: string;
  client_secret?: string;
  /** The OAuth 2.0 user token (`auth login --oauth2`): rotated together by every refresh. */
  oauth2_access_token?: string;
  oauth2_refresh_token?: string;
  /** ISO time the access token expires. */
  oauth2_expires_at?: string;
  /** Granted scopes, space-separated (what the token endpoint answered, not what was asked). */
  oauth2_scopes?: string;
  /** The client the token was issued to: refreshing and revoking must use the same one. */
  oauth2_client_id?: string;
  oauth2_user_id?: string;
  oauth2_screen_name?: string;
  /** Settings (`xctl config set`). */
  base_url?: string;
  account_id?: string;
  output?: string;
  max_wait?: string;
}

export const CREDENTIAL_FIELDS = ['api_key', 'api_secret', 'access_token', 'access_token_secret', 'user_id', 'screen_name', 'bearer_token', 'client_id', 'client_secret'] as const;
export const SECRET_FIELDS = ['api_secret', 'access_token', 'access_token_secret', 'bearer_token', 'client_secret', 'oauth2_access_token', 'oauth2_refresh_token'] as const;
/** The profile keys of the OAuth 2.0 user token; logging out or in again replaces all of them. */
export const OAUTH2_TOKEN_FIELDS = ['oauth2_access_token', 'oauth2_refresh_token', 'oauth2_expires_at', 'oauth2_scopes', 'oauth2_client_id', 'oauth2_user_id', 'oauth2_screen_name'] as const;

/** Keys `xctl config set` accepts, with their checks. Credentials go through `xctl auth set`. */
export const SETTINGS: Record<string, { describe: string; check?: (v: string) => string | undefined }> = {
  base_url: {
    describe: 'API base URL for both the API and the ads hosts (sandbox or proxy)',
    check: (v) => (/^https?:\/\/[^\s/]+/.test(v) ? undefined : 'must be an http(s) URL'),
  },
  account_id: { describe: 'default ads account id', check: (v) => (/^[a-z0-9]+$/i.test(v) ? undefined : 'must be an account id') },
  output: {
    describe: 'default output format: table, json, jsonl or tsv',
    check: (v) => (['table', 'json', 'jsonl', 'tsv'].includes(v) ? undefined : 'must be table, json, jsonl or tsv'),
  },
  max_wait: {
    describe: 'longest wait for a rate-limit reset, in seconds',
    check: (v) => (/^\d+$/.test(v) ? undefined : 'must be a whole number of seconds'),
  },
};

export const ENV_CREDENTIALS: Record<string, keyof Profile> = {
  XCTL_API_KEY: 'api_key',
  XCTL_API_SECRET: 'api_secret',
  XCTL_ACCESS_TOKEN: 'access_token',
  XCTL_ACCESS_TOKEN_SECRET: 'access_token_secret',
  XCTL_BEARER_TOKEN: 'bearer_token',
  XCTL_CLIENT_ID: 'client_id',
  XCTL_CLIENT_SECRET: 'client_secret',
};

interface StoreData {
  default_profile?: string;
  profiles?: Record<string, Profile>;
}

type ConfInstance = {
  path: string;
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  store: StoreData;
};

const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new UsageError(`profile names use letters, digits, '.', '_' and '-' (got "${name}")`, { flag: '--profile' });
  return name;
}

export class Store {
  private constructor(private conf: ConfInstance) {}

  static async open(env: Record<string, string | undefined>): Promise<Store> {
    const { default: Conf } = await import('conf');
    const cwd = env.XCTL_CONFIG_DIR || undefined;
    if (cwd) fs.mkdirSync(cwd, { recursive: true, mode: 0o700 });
    const file = path.join(cwd ? path.resolve(cwd) : path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'xctl'), 'config.json');
    if (cwd || process.platform === 'linux') checkStorePlace(file);
    let conf: ConfInstance;
    try {
      conf = new Conf<StoreData>({
        projectName: 'xctl',
        projectSuffix: '',
        configName: 'config',
        cwd,
        configFileMode: 0o600,
        clearInvalidConfig: false,
      }) as unknown as ConfInstance;
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      throw new XctlError(`the profile store ${file} is not valid JSON (${e.message})`, { hint: 'fix or remove the file; `xctl auth set` recreates it' });
    }
    checkStorePlace(conf.path);
    return new Store(conf);
  }

  get path(): string {
    return this.conf.path;
  }

  get defaultProfile(): string {
    return (this.conf.get('default_profile') as string | undefined) ?? 'default';
  }

  setDefaultProfile(name: string): void {
    checkProfileName(name);
    this.write(() => this.conf.set('default_profile', name));
  }

  profiles(): Record<string, Profile> {
    let all: Record<string, Profile> | undefined;
    try {
      all = this.conf.get('profiles') as Record<string, Profile> | undefined;
    } catch (e) {
      throw new XctlError(`the profile store ${this.conf.path} is not valid JSON (${(e as Error).message})`, { hint: 'fix or remove the file; `xctl auth set` recreates it' });
    }
    return { ...(all ?? {}) };
  }

  profile(name: string): Profile | undefined {
    return this.profiles()[name];
  }

  /** Merges a patch into a profile; `undefined` values delete keys. Creates the profile. */
  updateProfile(name: string, patch: Partial<Profile>): Profile {
    checkProfileName(name);
    let next: Profile = {};
    this.write(() => {
      const all = this.profiles();
      next = { ...(all[name] ?? {}) };
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) delete next[k as keyof Profile];
        else next[k as keyof Profile] = v;
      }
      all[name] = next;
      this.conf.set('profiles', all);
    });
    return next;
  }

  removeProfile(name: string): boolean {
    let removed = false;
    this.write(() => {
      const all = this.profiles();
      if (!(name in all)) return;
      delete all[name];
      this.conf.set('profiles', all);
      if (this.defaultProfile === name) this.conf.delete('default_profile');
      removed = true;
    });
    return removed;
  }

  /**
   * Every read-modify-write holds the store's lock file, so a write from another xctl process
   * (a cached bearer, a rotated OAuth 2.0 pair) is never overwritten by a copy read before it;
   * and ends with the file at mode 0600, whatever the umask or an earlier chmod did.
   */
  private write(fn: () => void): void {
    fs.mkdirSync(path.dirname(this.conf.path), { recursive: true, mode: 0o700 });
    withFileLockSync(`${this.conf.path}.lock`, fn);
    ensureMode(this.conf.path);
  }
}

export function ensureMode(file: string): void {
  try {
    const st = fs.statSync(file);
    if ((st.mode & 0o777) !== 0o600) fs.chmodSync(file, 0o600);
    const dir = path.dirname(file);
    const dst = fs.statSync(dir);
    if ((dst.mode & 0o077) !== 0 && path.basename(dir) === 'xctl') fs.chmodSync(dir, 0o700);
  } catch {
    /* the file may not exist yet */
  }
}

export interface Credentials {
  profile: string;
  api_key?: string;
  api_secret?: string;
  access_token?: string;
  access_token_secret?: string;
  bearer_token?: string;
  user_id?: string;
  screen_name?: string;
  client_id?: string;
  client_secret?: string;
  /** Where each set value came from. */
  source: Partial<Record<keyof Profile, 'env' | 'profile'>>;
}

export function resolveCredentials(profileName: string, profile: Profile | undefined, env: Record<string, string | undefined>): Credentials {
  const c: Credentials = { profile: profileName, source: {} };
  for (const f of CREDENTIAL_FIELDS) {
    const v = profile?.[f];
    if (v) {
      (c as unknown as Record<string, string>)[f] = v;
      c.source[f] = 'profile';
    }
  }
  for (const [name, f] of Object.entries(ENV_CREDENTIALS)) {
    const v = env[name];
    if (v) {
      (c as unknown as Record<string, string>)[f] = v;
      c.source[f] = 'env';
    }
  }
  return c;
}
