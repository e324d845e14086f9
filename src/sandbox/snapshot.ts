// A sandbox's whole state as one JSON document: what `sandbox start --state FILE` loads and saves
// and `GET /_sandbox/state/export` returns. It holds the app's keys and every token (so scripts
// keep working across restarts): the file is written 0600 and the endpoint takes the admin key.
// Not kept: open connections, nonces, the request log, faults (options of the run), and clock
// jobs in flight (media processing, stats jobs); webhooks get their periodic checks again.
import type { SandboxApp, SandboxSeed } from './app.js';
import type { Entity, SandboxAppRecord } from './state.js';

export const SNAPSHOT_VERSION = 1;

export interface SandboxSnapshot {
  xctl_sandbox_state: typeof SNAPSHOT_VERSION;
  saved_at: string;
  clock: { mode: string; now: string };
  seed: Omit<SandboxSeed, 'base_url'>;
  apps: Array<Omit<SandboxAppRecord, 'approvedBy'> & { approvedBy: string[] }>;
  users: unknown[];
  user_tokens: unknown[];
  request_tokens: unknown[];
  oauth2_clients: unknown[];
  oauth2_codes: unknown[];
  oauth2_access: unknown[];
  oauth2_refresh: unknown[];
  collections: Record<string, Entity[]>;
  slots: Record<string, unknown>;
}

export function saveSnapshot(app: SandboxApp): SandboxSnapshot {
  const s = app.state;
  const { base_url: _omit, ...seed } = app.seed;
  return {
    xctl_sandbox_state: SNAPSHOT_VERSION,
    saved_at: new Date().toISOString(),
    clock: { mode: app.clock.mode, now: app.clock.iso() },
    seed,
    apps: [...s.apps.values()].map((a) => ({ ...a, approvedBy: [...a.approvedBy] })),
    users: [...s.users.values()],
    user_tokens: [...s.userTokens.values()],
    request_tokens: [...s.requestTokens.values()],
    oauth2_clients: [...s.oauth2Clients.values()],
    oauth2_codes: [...s.oauth2Codes.values()],
    oauth2_access: [...s.oauth2Access.values()],
    oauth2_refresh: [...s.oauth2Refresh.values()],
    collections: Object.fromEntries(s.savedCollectionNames().map((n) => [n, [...s.collectionNamed(n).values()]])),
    slots: s.savedSlots(),
  };
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Records of a list keyed by one string field; anything else is a malformed file. */
function records<T>(v: unknown, what: string, key: string): Array<[string, T]> {
  if (!Array.isArray(v)) throw new Error(`${what} must be a list`);
  return v.map((r, i) => {
    if (!isObj(r) || typeof r[key] !== 'string') throw new Error(`${what}[${i}] has no ${key}`);
    return [r[key] as string, r as T];
  });
}

function refill<T>(m: Map<string, T>, entries: Array<[string, T]>): void {
  m.clear();
  for (const [k, v] of entries) m.set(k, v);
}

/** Replaces the app's state by a saved one; throws an Error saying what is wrong with it. */
export function loadSnapshot(app: SandboxApp, raw: unknown): void {
  if (!isObj(raw) || raw.xctl_sandbox_state !== SNAPSHOT_VERSION) {
    throw new Error(
      `not a sandbox state file (expected "xctl_sandbox_state": ${SNAPSHOT_VERSION}, as \`xctl sandbox state --out FILE\` writes)`,
    );
  }
  // Each part is checked below before it is used (seed, apps, collections, slots).
  const j = raw as unknown as SandboxSnapshot;
  if (!isObj(j.seed) || typeof j.seed.api_key !== 'string') throw new Error('seed is missing');
  const apps = records<SandboxSnapshot['apps'][number]>(j.apps, 'apps', 'key');
  if (!apps.some(([k]) => k === j.seed.api_key)) throw new Error(`seed.api_key is not one of the apps`);
  const collections = isObj(j.collections) ? j.collections : {};
  const parsed = Object.entries(collections).map(
    ([name, list]) => [name, records<Entity>(list, `collections.${name}`, 'id')] as const,
  );
  const s = app.state;
  // Everything is checked before anything is replaced: a bad file leaves the fresh sandbox.
  const users = records<never>(j.users, 'users', 'id');
  const userTokens = records<never>(j.user_tokens, 'user_tokens', 'token');
  const requestTokens = records<never>(j.request_tokens ?? [], 'request_tokens', 'token');
  const clients = records<never>(j.oauth2_clients ?? [], 'oauth2_clients', 'clientId');
  const codes = records<never>(j.oauth2_codes ?? [], 'oauth2_codes', 'code');
  const access = records<never>(j.oauth2_access ?? [], 'oauth2_access', 'token');
  const refresh = records<never>(j.oauth2_refresh ?? [], 'oauth2_refresh', 'token');
  refill(
    s.apps,
    apps.map(([k, a]) => [
      k,
      {
        ...a,
        callbacks: a.callbacks ?? [],
        tokenRequests: a.tokenRequests ?? [],
        approvedBy: new Set(a.approvedBy ?? []),
      },
    ]),
  );
  refill(s.users, users);
  refill(s.userTokens, userTokens);
  refill(s.requestTokens, requestTokens);
  refill(s.oauth2Clients, clients);
  refill(s.oauth2Codes, codes);
  refill(s.oauth2Access, access);
  refill(s.oauth2Refresh, refresh);
  for (const name of s.savedCollectionNames()) if (!(name in collections)) s.collectionNamed(name).clear();
  for (const [name, entries] of parsed) refill(s.collectionNamed(name), entries);
  if (isObj(j.slots)) for (const [name, v] of Object.entries(j.slots)) s.loadSlot(name, v);
  app.seed = { ...app.seed, ...j.seed };
  const t = Date.parse(j.clock?.now ?? '');
  if (app.clock.mode === 'manual' && Number.isFinite(t)) app.clock.set(t);
}
