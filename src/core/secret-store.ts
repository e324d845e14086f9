// Where a profile's secrets live: the OS keychain (Secret Service on Linux, the macOS Keychain,
// the Windows Credential Manager, through @napi-rs/keyring) or the 0600 JSON store. The store
// (config.ts) keeps every non-secret field in its file and asks this module to fill in, write
// and remove the secret ones of a profile marked `secrets_in: "keyring"`.
//
// One keyring entry per profile holds all its secrets as one JSON text: a rotated OAuth 2.0 pair
// is replaced by one write (as in the file), and a migration moves a profile in one step.
// The native module is loaded only here, on first need: never by --version, --help, or by a
// command whose profiles keep their secrets in the file.
import { createRequire } from 'node:module';
import { KEYCHAIN_UNREACHABLE, UsageError, XctlError, errorMessage } from './errors.js';

/** The profile fields that are secrets (the rest stay in the file). */
export const KEYRING_FIELDS = [
  'api_secret',
  'access_token',
  'access_token_secret',
  'bearer_token',
  'client_secret',
  'oauth2_access_token',
  'oauth2_refresh_token',
] as const;
export type SecretField = (typeof KEYRING_FIELDS)[number];
export type Secrets = Partial<Record<SecretField, string>>;

export type SecretStorage = 'keyring' | 'file';
/** The user's choice: XCTL_SECRET_STORAGE, else `config set secret_storage`, else auto. */
export type StoragePreference = SecretStorage | 'auto';

/** The keychain's service name; the account names the profile and the store file. */
export const KEYRING_SERVICE = 'xctl';
/** How long finding out whether a keychain answers may take (a D-Bus round trip is ~ms). */
export const PROBE_MS = 2_000;

/** A keychain reached synchronously once a bounded probe has shown that it answers. */
export interface Keyring {
  read(account: string): Secrets | undefined;
  write(account: string, secrets: Secrets): void;
  remove(account: string): void;
}

interface KeyringModule {
  Entry: new (
    service: string,
    user: string,
    o?: unknown,
  ) => {
    getPassword(): string | null;
    setPassword(p: string): void;
    deletePassword(): boolean;
  };
  AsyncEntry: new (
    service: string,
    user: string,
    o?: unknown,
  ) => {
    getPassword(signal?: AbortSignal): Promise<string | null>;
  };
}

// On Linux the library falls back to the kernel keyring when there is no Secret Service: those
// keys vanish with the login session, so the Secret Service is required (else: the file).
const ENTRY_OPTIONS = { linux: { store: 'secret-service' } };

export function preference(env: Record<string, string | undefined>, profileSetting?: string): StoragePreference {
  const v = env.XCTL_SECRET_STORAGE || profileSetting || 'auto';
  if (v !== 'keyring' && v !== 'file' && v !== 'auto') {
    throw new UsageError(`XCTL_SECRET_STORAGE must be keyring, file or auto (got "${v}")`);
  }
  return v;
}

/** Why no keychain can be used without asking it (headless Linux: no D-Bus session). */
function absentWithoutAsking(env: Record<string, string | undefined>, platform: NodeJS.Platform): string | undefined {
  if (platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS)
    return 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset): no Secret Service';
  if (!['linux', 'darwin', 'win32'].includes(platform)) return `no keychain support on ${platform}`;
  return undefined;
}

function loadModule(): KeyringModule | string {
  try {
    // Required at run time (an external of the bundle): a native module cannot be bundled.
    return createRequire(import.meta.url)('@napi-rs/keyring') as KeyringModule;
  } catch (e) {
    return `the keychain module cannot load (${errorMessage(e).split('\n')[0]})`;
  }
}

function syncKeyring(m: KeyringModule): Keyring {
  const entry = (account: string) => new m.Entry(KEYRING_SERVICE, account, ENTRY_OPTIONS);
  return {
    read(account) {
      const v = entry(account).getPassword();
      if (v === null) return undefined;
      const parsed: unknown = JSON.parse(v);
      return parsed && typeof parsed === 'object' ? (parsed as Secrets) : undefined;
    },
    write(account, secrets) {
      entry(account).setPassword(JSON.stringify(secrets));
    },
    remove(account) {
      entry(account).deletePassword();
    },
  };
}

/** `asked`: a keychain is there but did not answer (locked, or slow), as opposed to none at all. */
export type Probe = { keyring: Keyring; why?: undefined } | { keyring?: undefined; why: string; asked?: boolean };

/**
 * Asks the keychain once, bounded by PROBE_MS, reading `account` (so a locked keychain shows
 * here, not later): the keyring when it answered, else why not. In process, asynchronously.
 */
export async function probeAsync(
  env: Record<string, string | undefined>,
  account: string,
  platform = process.platform,
): Promise<Probe> {
  const absent = absentWithoutAsking(env, platform);
  if (absent) return { why: absent };
  const m = loadModule();
  if (typeof m === 'string') return { why: m };
  let timer: NodeJS.Timeout | undefined;
  try {
    const ask = new m.AsyncEntry(KEYRING_SERVICE, account, ENTRY_OPTIONS).getPassword(AbortSignal.timeout(PROBE_MS));
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_MS} ms`)), PROBE_MS + 100);
      timer.unref();
    });
    await Promise.race([ask, late]);
    return { keyring: syncKeyring(m) };
  } catch (e) {
    return { why: `the keychain did not answer: ${describe(e)}`, asked: true };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The same question from synchronous code (the store's writes): asked in a child process that
 * is killed after PROBE_MS, so a keychain that never answers costs a bounded delay, never a hang.
 */
export function probeSync(
  env: Record<string, string | undefined>,
  account: string,
  platform = process.platform,
): Probe {
  const absent = absentWithoutAsking(env, platform);
  if (absent) return { why: absent };
  let modPath: string;
  try {
    modPath = createRequire(import.meta.url).resolve('@napi-rs/keyring');
  } catch (e) {
    return { why: `the keychain module cannot load (${errorMessage(e).split('\n')[0]})` };
  }
  const script =
    `const m=require(${JSON.stringify(modPath)});` +
    `new m.AsyncEntry(${JSON.stringify(KEYRING_SERVICE)},process.argv[1],${JSON.stringify(ENTRY_OPTIONS)})` +
    `.getPassword().then(()=>process.stdout.write('ok'),(e)=>{process.stdout.write('no:'+e.message);})`;
  // Required here, not at the top: the store loads with every command, child_process need not.
  const { spawnSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const r = spawnSync(process.execPath, ['-e', script, account], {
    timeout: PROBE_MS,
    encoding: 'utf8',
    env: probeEnv(env),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (r.stdout === 'ok') {
    const m = loadModule();
    return typeof m === 'string' ? { why: m } : { keyring: syncKeyring(m) };
  }
  if (r.error || r.signal) return { why: `the keychain did not answer within ${PROBE_MS} ms`, asked: true };
  return {
    why: `the keychain did not answer: ${(r.stdout || 'no reason given').replace(/^no:/, '')}`,
    asked: true,
  };
}

/** The child's environment: what reaches the keychain (D-Bus, HOME...), never an XCTL_* value. */
function probeEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) {
    if (v !== undefined && !k.startsWith('XCTL_')) out[k] = v;
  }
  out.NODE_OPTIONS = '';
  return out;
}

function describe(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0]!.slice(0, 200);
}

/** The error for a profile whose secrets are in a keychain that cannot be reached now. */
export function unreachable(profile: string, why: string): XctlError {
  return new XctlError(`profile "${profile}" keeps its secrets in the OS keychain, which cannot be used now: ${why}`, {
    code: KEYCHAIN_UNREACHABLE,
    hint:
      'unlock the keychain (or start the Secret Service) and retry; or set the credentials with XCTL_* variables. ' +
      'Profiles whose secrets are in the file (`xctl auth status`) keep working',
  });
}
