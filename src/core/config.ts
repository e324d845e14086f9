// The profile store (one JSON file, mode 0600, atomic writes) and credential precedence:
// environment over profile.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError, XctlError, errnoCode, errorMessage } from './errors.js';
import { withFileLockSync } from './file-lock.js';
import { checkStorePlace } from './store-guard.js';
import { ProfileSecrets } from './profile-secrets.js';
import { fileSystemError } from './fs-errors.js';
import type { Profile } from './profile.js';

export type { Profile };

export const CREDENTIAL_FIELDS = [
  'api_key',
  'api_secret',
  'access_token',
  'access_token_secret',
  'user_id',
  'screen_name',
  'bearer_token',
  'client_id',
  'client_secret',
] as const;
/** The fields that hold secrets: the one list redaction reads (secretsOf). Add a secret here. */
export const SECRET_FIELDS = [
  'api_secret',
  'access_token',
  'access_token_secret',
  'bearer_token',
  'client_secret',
  'oauth2_access_token',
  'oauth2_refresh_token',
] as const;

/** The secret values (SECRET_FIELDS) of profiles or credentials, for redaction. */
export function secretsOf(
  ...records: Array<Partial<Record<(typeof SECRET_FIELDS)[number], string>> | undefined>
): string[] {
  const out: string[] = [];
  for (const r of records) {
    for (const f of SECRET_FIELDS) {
      const v = r?.[f];
      if (v) out.push(v);
    }
  }
  return out;
}
/** The profile keys of the OAuth 2.0 user token; logging out or in again replaces all of them. */
export const OAUTH2_TOKEN_FIELDS = [
  'oauth2_access_token',
  'oauth2_refresh_token',
  'oauth2_expires_at',
  'oauth2_scopes',
  'oauth2_client_id',
  'oauth2_user_id',
  'oauth2_screen_name',
] as const;

/** Keys `xctl config set` accepts, with their checks. Credentials go through `xctl auth set`. */
export const SETTINGS: Record<
  string,
  { describe: string; example: string; env?: string; check?: (v: string) => string | undefined }
> = {
  base_url: {
    describe: 'API base URL for both the API and the ads hosts (sandbox or proxy)',
    example: 'http://127.0.0.1:8080',
    env: 'XCTL_BASE_URL',
    check: (v) => (/^https?:\/\/[^\s/]+/.test(v) ? undefined : 'must be an http(s) URL'),
  },
  account_id: {
    describe: 'default ads account id (see `xctl ads accounts list`)',
    example: '18ce54d4x5t',
    env: 'XCTL_ACCOUNT_ID',
    check: (v) => (/^[a-z0-9]+$/i.test(v) ? undefined : 'must be an account id'),
  },
  output: {
    describe: 'default output format: table, json, jsonl, tsv or csv',
    example: 'json',
    env: 'XCTL_OUTPUT',
    check: (v) =>
      ['table', 'json', 'jsonl', 'tsv', 'csv'].includes(v) ? undefined : 'must be table, json, jsonl, tsv or csv',
  },
  max_wait: {
    describe: 'longest wait for a rate-limit reset, in seconds',
    example: '900',
    check: (v) => (/^\d+$/.test(v) ? undefined : 'must be a whole number of seconds'),
  },
  secret_storage: {
    describe:
      "where the profile's new secrets go: keyring (the OS keychain), file, or auto (keyring when there is one); `auth migrate` moves existing ones",
    example: 'keyring',
    env: 'XCTL_SECRET_STORAGE',
    check: (v) => (['keyring', 'file', 'auto'].includes(v) ? undefined : 'must be keyring, file or auto'),
  },
};

export const ENV_CREDENTIALS: Record<string, (typeof CREDENTIAL_FIELDS)[number]> = {
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
  [other: string]: unknown;
}

const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Names a JavaScript object, a file system or a shell would take for something else. */
const RESERVED_PROFILE_NAMES = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
]);

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name))
    throw new UsageError(`profile names use letters, digits, '.', '_' and '-' (got "${name}")`, { flag: '--profile' });
  if (RESERVED_PROFILE_NAMES.has(name) || /^[.-]/.test(name)) {
    throw new UsageError(`"${name}" cannot be a profile name: it is reserved, or starts with '.' or '-'`, {
      flag: '--profile',
      hint: 'choose a name that starts with a letter, digit or _',
    });
  }
  return name;
}

/**
 * The folder the store lives in. Without XCTL_CONFIG_DIR it is where earlier versions (the `conf`
 * package, via env-paths with project "xctl" and no suffix) put it, so existing profiles keep
 * working: $XDG_CONFIG_HOME/xctl or ~/.config/xctl, ~/Library/Preferences/xctl on macOS,
 * %APPDATA%\xctl\Config on Windows.
 */
export function storeDir(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.XCTL_CONFIG_DIR) return path.resolve(env.XCTL_CONFIG_DIR);
  // os.homedir() answers HOME first on POSIX; reading it here spares loading node:os.
  const home = (process.platform !== 'win32' && env.HOME) || os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'xctl');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'xctl', 'Config');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'xctl');
}

/**
 * No folder for xctl's files was named: HOME is unset and neither XCTL_CONFIG_DIR nor (outside
 * macOS) XDG_CONFIG_HOME says where. os.homedir() would fall back to the passwd entry's home
 * (`/root` for a CI job run as root), a folder the user never chose: the store then neither
 * reads nor writes anything there (issue 33); credentials come from the environment. Windows
 * keeps its APPDATA folder (HOME is rarely set there).
 */
export function configDirUnnamed(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform === 'win32' || env.XCTL_CONFIG_DIR || env.HOME) return false;
  return platform === 'darwin' || !env.XDG_CONFIG_HOME;
}

/**
 * The profile store: one JSON file (tab-indented, as conf wrote it), read afresh on every access
 * and replaced atomically on every write (temporary file in the same folder, fsync, rename), mode
 * 0600. A plain file store instead of conf: conf compiles JSON schemas (ajv) on load, which cost
 * every command tens of milliseconds for a file that holds a few strings.
 */
export class Store {
  readonly path: string;
  /** The OS keychain side of the profiles whose secrets live there (profile-secrets.ts). */
  readonly secrets: ProfileSecrets;
  /** No folder was named (configDirUnnamed): the store is empty and nothing is written. */
  readonly unnamed: boolean;

  private constructor(dir: string, env: Record<string, string | undefined>) {
    this.path = path.join(dir, 'config.json');
    this.secrets = new ProfileSecrets(this.path, env);
    this.unnamed = configDirUnnamed(env);
  }

  static async open(env: Record<string, string | undefined>): Promise<Store> {
    const store = new Store(storeDir(env), env);
    if (store.unnamed) return store;
    // Ownership, modes and symbolic links of the folder and file (store-guard.ts).
    checkStorePlace(store.path);
    try {
      await store.secrets.prepare(store.rawProfiles());
    } catch {
      /* an unreadable file is reported by the read that needs it */
    }
    return store;
  }

  /** The profiles as the file holds them (a keyring profile without its secrets). */
  rawProfiles(): Record<string, Profile> {
    const p = this.read().profiles;
    return p && typeof p === 'object' ? { ...p } : {};
  }

  get defaultProfile(): string {
    const v = this.read().default_profile;
    return typeof v === 'string' ? v : 'default';
  }

  setDefaultProfile(name: string): void {
    checkProfileName(name);
    this.update((d) => {
      d.default_profile = name;
    });
  }

  /** Every profile, a keyring one with its secrets (or without them when the keychain cannot be used). */
  profiles(): Record<string, Profile> {
    const all = this.rawProfiles();
    for (const [name, p] of Object.entries(all)) {
      try {
        all[name] = this.secrets.fill(name, p);
      } catch {
        /* listed without its secrets; reading the profile itself says why */
      }
    }
    return all;
  }

  /** One profile, its secrets filled in from the keychain when they live there (read afresh). */
  profile(name: string): Profile | undefined {
    const all = this.rawProfiles();
    return Object.hasOwn(all, name) ? this.secrets.fill(name, all[name]!) : undefined;
  }

  /** Merges a patch into a profile; `undefined` values delete keys. Creates the profile. */
  updateProfile(name: string, patch: Partial<Profile>): Profile {
    checkProfileName(name);
    let next: Profile = {};
    this.update((d) => {
      const all = { ...(d.profiles ?? {}) };
      const before = Object.hasOwn(all, name) ? all[name] : undefined;
      next = before ? this.secrets.fill(name, before) : {};
      next = { ...next };
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) delete next[k as keyof Profile];
        else next[k as keyof Profile] = v;
      }
      // The secrets go to the keychain (first) when the profile keeps them there.
      all[name] = this.secrets.split(name, next, before);
      d.profiles = all;
    });
    return next;
  }

  removeProfile(name: string): boolean {
    let removed = false;
    this.update((d) => {
      const all = { ...(d.profiles ?? {}) };
      if (!Object.hasOwn(all, name)) return false;
      this.secrets.remove(name, all[name]);
      delete all[name];
      d.profiles = all;
      if (d.default_profile === name) delete d.default_profile;
      removed = true;
    });
    return removed;
  }

  /**
   * Moves a profile's secrets to the keychain or the file, all or nothing (profile-secrets.ts):
   * under the store's lock, the new place is written first, then the file in one rename.
   */
  migrateSecrets(name: string, to: 'keyring' | 'file'): Profile {
    let out: Profile = {};
    let after: (() => void) | undefined;
    this.update((d) => {
      const all = { ...(d.profiles ?? {}) };
      if (!Object.hasOwn(all, name)) throw new UsageError(`no profile named "${name}"`, { flag: '--profile' });
      const m = this.secrets.migrate(name, all[name]!, to);
      all[name] = out = m.file;
      after = m.after;
      d.profiles = all;
    });
    after?.();
    return out;
  }

  /**
   * The folder of the store, where sync snapshots and upload journals go by default; when no
   * folder was named (HOME unset), an error naming --state-dir (nothing is written to the passwd
   * home); `or`: another flag that names the file itself (upload's --journal FILE).
   */
  folder(what: string, or = ''): string {
    if (!this.unnamed) return path.dirname(this.path);
    throw new UsageError(`HOME is not set and no folder was named for ${what}: nothing was sent`, {
      flag: '--state-dir',
      hint:
        `pass --state-dir DIR${or ? ` or ${or}` : ''} (or set XCTL_STATE_DIR or XCTL_CONFIG_DIR); ` +
        "xctl does not write to the passwd entry's home folder",
    });
  }

  private read(): StoreData {
    if (this.unnamed) return {};
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return {};
      throw e;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new XctlError(`the profile store ${this.path} is not valid JSON (${errorMessage(e)})`, {
        hint: 'fix or remove the file; `xctl auth set` recreates it',
      });
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) {
      throw new XctlError(`the profile store ${this.path} does not hold a JSON object`, {
        hint: 'fix or remove the file; `xctl auth set` recreates it',
      });
    }
    return data as StoreData;
  }

  /**
   * Read-modify-write of the whole file (keys this version does not know are kept), under the
   * store's lock file, so a write from another xctl process (a cached bearer, a rotated OAuth 2.0
   * pair) is never overwritten by a copy read before it; it ends with the file at mode 0600,
   * whatever the umask or an earlier chmod did.
   */
  private update(fn: (d: StoreData) => void | false): void {
    if (this.unnamed)
      throw new UsageError(`HOME is not set and no folder was named for the profile store: nothing was written`, {
        hint:
          'set XCTL_CONFIG_DIR (or HOME) to the folder to keep it in; ' +
          'credentials can also come from the XCTL_* variables',
      });
    try {
      fs.mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
      withFileLockSync(`${this.path}.lock`, () => {
        const data = this.read();
        if (fn(data) === false) return;
        writeAtomic(this.path, JSON.stringify(data, undefined, '\t'));
      });
    } catch (e) {
      throw fileSystemError(e, `write the profile store ${this.path}`) ?? e;
    }
    ensureMode(this.path);
  }
}

/** Writes a sibling temporary file (0600 from creation), fsyncs it and renames it over `file`. */
export function writeAtomic(file: string, text: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
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

export function resolveCredentials(
  profileName: string,
  profile: Profile | undefined,
  env: Record<string, string | undefined>,
): Credentials {
  const c: Credentials = { profile: profileName, source: {} };
  for (const f of CREDENTIAL_FIELDS) {
    const v = profile?.[f];
    if (v) {
      c[f] = v;
      c.source[f] = 'profile';
    }
  }
  for (const [name, f] of Object.entries(ENV_CREDENTIALS)) {
    const v = env[name];
    if (v) {
      c[f] = v;
      c.source[f] = 'env';
    }
  }
  return c;
}
