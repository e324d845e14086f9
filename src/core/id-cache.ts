// A small cache of the ids shell completion offers (`xctl __complete`): one file per profile,
// account, base URL and kind of id, kept a minute, in the user's cache folder. Ids and names only
// (service data, never a credential), written as the profile store writes (a 0600 temporary file
// renamed over the old one, in a 0700 folder); a file another user could have planted or changed
// is ignored.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeAtomic } from './config.js';
import { isRecord } from '../contract/guards.js';

export interface IdEntry {
  id: string;
  /** What the shell shows beside the id (zsh, fish): a name, a URL, an event type. */
  name: string;
}

interface CacheFile {
  fetched_at: number;
  entries: IdEntry[];
}

/** How long a fetched list answers completions without asking the service again. */
export const ID_CACHE_TTL_MS = 60_000;
/** At most this many ids are kept (and offered) per kind. */
export const ID_CACHE_MAX = 1000;

/**
 * The user's cache folder for xctl: XCTL_CACHE_DIR, else $XDG_CACHE_HOME/xctl or ~/.cache/xctl,
 * ~/Library/Caches/xctl on macOS, %LOCALAPPDATA%\xctl\Cache on Windows (env-paths' choices).
 */
export function cacheDir(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.XCTL_CACHE_DIR) return path.resolve(env.XCTL_CACHE_DIR);
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'xctl');
  if (platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'xctl', 'Cache');
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'xctl');
}

export interface IdCacheKey {
  profile: string;
  account: string;
  base: string;
  kind: string;
}

/** The cache file of one key: `completion/<kind>-<digest of profile, account and base>.json`. */
export function idCacheFile(dir: string, k: IdCacheKey): string {
  const digest = createHash('sha256').update(`${k.profile}\0${k.account}\0${k.base}`).digest('hex').slice(0, 24);
  return path.join(dir, 'completion', `${k.kind}-${digest}.json`);
}

/** True when the file is ours to trust: a regular file of this user, written by no one else. */
function trusted(file: string): boolean {
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.mode & 0o022) return false;
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    return uid === undefined || st.uid === uid;
  } catch {
    return false;
  }
}

function validEntries(v: unknown): IdEntry[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: IdEntry[] = [];
  for (const e of v.slice(0, ID_CACHE_MAX)) {
    if (!isRecord(e)) return undefined;
    const { id, name } = e;
    if (typeof id !== 'string' || typeof name !== 'string') return undefined;
    out.push({ id, name });
  }
  return out;
}

/** The cached entries and their age, or undefined (absent, unreadable, malformed, untrusted). */
export function readIdCache(file: string, now: number): { entries: IdEntry[]; ageMs: number } | undefined {
  if (!trusted(file)) return undefined;
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<CacheFile>;
    const entries = validEntries(data.entries);
    if (!entries || typeof data.fetched_at !== 'number') return undefined;
    return { entries, ageMs: now - data.fetched_at };
  } catch {
    return undefined;
  }
}

/** Replaces the cache file (0600, in 0700 folders); a failure to write is not the user's concern. */
export function writeIdCache(file: string, entries: IdEntry[], now: number): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const body: CacheFile = { fetched_at: now, entries: entries.slice(0, ID_CACHE_MAX) };
    writeAtomic(file, JSON.stringify(body));
  } catch {
    /* completion goes on without a cache */
  }
}
