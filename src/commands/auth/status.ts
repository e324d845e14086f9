import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed, XctlError } from '../../core/errors.js';
import { ENV_CREDENTIALS, resolveCredentials, type Profile, type Store } from '../../core/config.js';
import { mask } from '../../core/io.js';
import { redactUrlCredentials } from '../../core/redact.js';
import { printList, type Rec } from '../../core/output.js';
import { declare } from '../define.js';
import { OAUTH_ENDPOINTS } from '../../contract/oauth.js';
import { OAUTH2_ENDPOINTS } from '../../contract/oauth2.js';

export function register(parent: Command, runF = authStatus): void {
  declare(parent, {
    name: 'status',
    description:
      'what is set in each profile (masked), and what the environment overrides; exit 1 when nothing usable is set',
    options: [
      [
        '--check',
        'verify each credential of the selected profile with the service (ok/failed per credential; exit 1 on any failure)',
      ],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

export interface AuthStatusOptions {
  check?: boolean;
}

/** Describes every profile, masked; exit 1 when the selected profile has nothing usable. */
export async function authStatus(ctx: Context, o: AuthStatusOptions = {}): Promise<void> {
  if (o.check) return authCheck(ctx);
  const store = await ctx.store();
  const selected = await ctx.profileName();
  const profiles = store.profiles();
  // The selected profile's row even when it does not exist, but only with credentials from the
  // environment: otherwise a "default" row would be a phantom (issue 46); the hint names a real one.
  const envOnly = Object.keys(ENV_CREDENTIALS).some((k) => ctx.env[k]);
  if (!(selected in profiles) && (envOnly || !Object.keys(profiles).length)) profiles[selected] = {};
  const envSet = Object.keys(ENV_CREDENTIALS).filter((k) => ctx.env[k]);
  // Everything in the environment that changes what xctl uses, credentials or not.
  const envOther = ['XCTL_PROFILE', 'XCTL_CONFIG_DIR', 'XCTL_BASE_URL', 'XCTL_ACCOUNT_ID', 'XCTL_OUTPUT'].filter(
    (k) => ctx.env[k],
  );
  const rows: Rec[] = [];
  let usable = false;
  for (const [name, p] of Object.entries(profiles).sort()) {
    const c = name === selected ? resolveCredentials(name, p, ctx.env) : resolveCredentials(name, p, {});
    const bearerValid =
      !!c.bearer_token && (c.source.bearer_token === 'env' || !p.bearer_key || p.bearer_key === c.api_key);
    const bearer = bearerValid
      ? c.source.bearer_token === 'env'
        ? 'env'
        : 'cached'
      : c.bearer_token
        ? 'cached for another key'
        : '';
    // For whom: the handle and id stored with the token (a token from the environment is nobody we know).
    const who = c.screen_name
      ? `@${c.screen_name}${c.user_id ? ` (${c.user_id})` : ''}`
      : c.user_id
        ? c.user_id
        : 'set';
    const app = !!(c.api_key && c.api_secret);
    const user = !!(c.access_token && c.access_token_secret);
    const oauth2 = oauth2Summary(p, ctx.clock.now());
    if (name === selected) usable = app || user || bearerValid || !!p.oauth2_access_token;
    rows.push({
      profile: name,
      default: name === store.defaultProfile,
      selected: name === selected,
      api_key: c.api_key ? mask(c.api_key) : '',
      api_secret: c.api_secret ? 'set' : '',
      user_token: user ? (c.source.access_token === 'env' ? 'from env' : who) : c.access_token ? 'secret missing' : '',
      user_id: c.source.access_token === 'env' ? '' : (c.user_id ?? ''),
      screen_name: c.source.access_token === 'env' ? '' : (c.screen_name ?? ''),
      bearer,
      oauth2: oauth2.text,
      oauth2_user_id: p.oauth2_user_id ?? '',
      oauth2_screen_name: p.oauth2_screen_name ?? '',
      oauth2_scopes: p.oauth2_scopes ?? '',
      oauth2_expires_at: p.oauth2_expires_at ?? '',
      oauth2_refresh: p.oauth2_access_token ? (p.oauth2_refresh_token ? 'automatic' : 'none') : '',
      client_id: c.client_id ? mask(c.client_id) : '',
      client_secret: c.client_secret ? 'set' : '',
      secrets: secretsPlace(store, name, p),
      from_env: name === selected ? envSet.join(' ') : '',
      base_url: redactUrlCredentials(p.base_url ?? ''),
      account_id: p.account_id ?? '',
    });
  }
  await printList(ctx.io, await ctx.output(), rows, {
    // The OAuth 2.0 column only when some profile uses it: the table stays narrow for the others.
    columns: [
      'profile',
      'selected',
      'api_key',
      'api_secret',
      'user_token',
      'bearer',
      ...(rows.some((r) => r.oauth2) ? ['oauth2'] : []),
      'from_env',
      'base_url',
      'secrets',
    ],
    // "@handle (user id)": the id is copied whole, as any id is (issue 29: cut at 80 columns)
    whole: ['user_token'],
  });
  ctx.io.info(`store: ${store.path}${ctx.env.XCTL_CONFIG_DIR ? ' (folder from XCTL_CONFIG_DIR)' : ''}`);
  ctx.io.info(secretsNote(store, rows, ctx.env));
  if (envSet.length) ctx.io.info(`environment overrides the profile "${selected}": ${envSet.join(', ')}`);
  if (envOther.length)
    ctx.io.info(
      `environment also sets: ${envOther.map((k) => (k === 'XCTL_CONFIG_DIR' ? k : `${k}=${ctx.env[k]}`)).join(', ')}`,
    );
  if (!usable) await whyUnusable(ctx, store, selected, profiles[selected] ?? {});
}

/** Why the selected profile cannot be used: none selected, a keychain out of reach, or nothing set. */
async function whyUnusable(ctx: Context, store: Store, selected: string, p: Profile): Promise<never> {
  const none = await ctx.profiles.unselected();
  if (none) throw new CheckFailed(none.message, { hint: none.hint });
  // Secrets in a keychain out of reach: say that, and how to reach it (issue 46).
  if (secretsPlace(store, selected, p) === 'keyring (unreachable)') {
    try {
      store.secrets.fill(selected, { ...p });
    } catch (e) {
      if (e instanceof XctlError) throw new CheckFailed(e.message, { hint: e.hint });
      throw e;
    }
  }
  throw new CheckFailed(`profile "${selected}" has no usable credentials`, {
    hint: 'run `xctl auth set --api-key KEY --api-secret -`, `xctl auth login`, or try the sandbox: `xctl sandbox start`',
  });
}

/** Where a profile's secrets live: keyring, file, or keyring that cannot be reached now. */
function secretsPlace(store: Store, name: string, p: Profile): string {
  if (store.rawProfiles()[name]?.secrets_in !== 'keyring') return 'file';
  try {
    store.secrets.fill(name, p);
    return 'keyring';
  } catch {
    return 'keyring (unreachable)';
  }
}

/** Where new secrets go, and why when it is not the keychain. */
function secretsNote(store: Store, rows: Rec[], env: Record<string, string | undefined>): string {
  const inKeyring = rows.some((r) => String(r.secrets).startsWith('keyring'));
  if (env.XCTL_SECRET_STORAGE === 'file' && !inKeyring)
    return 'secrets: new secrets go to the 0600 file (XCTL_SECRET_STORAGE=file)';
  const p = store.secrets.status();
  if (p.keyring)
    return 'secrets: the OS keychain is available; new profiles keep their secrets there (`auth migrate` moves others)';
  const stuck = inKeyring ? '; the keyring profiles cannot be read now' : '';
  // Two short lines (issue 46: one of 134 characters wrapped at 80): what, then why.
  return `secrets: new secrets go to the 0600 file; no OS keychain${stuck}\n  (${p.why})`;
}

/** One cell for the OAuth 2.0 token: for whom, until when (or expired), and how many scopes. */
function oauth2Summary(p: Profile, now: number): { text: string } {
  if (!p.oauth2_access_token) return { text: p.client_id ? 'client set' : '' };
  const who = p.oauth2_screen_name ? `@${p.oauth2_screen_name}` : 'set';
  const exp = Date.parse(p.oauth2_expires_at ?? '');
  const when = !Number.isFinite(exp)
    ? ''
    : exp <= now
      ? p.oauth2_refresh_token
        ? ' (expired; refreshes on use)'
        : ' (expired)'
      : ` (until ${new Date(exp).toISOString().slice(11, 16)}Z)`;
  const n = (p.oauth2_scopes ?? '').split(' ').filter(Boolean).length;
  return { text: `${who}${when}, ${n} scope${n === 1 ? '' : 's'}` };
}

interface CheckRow extends Rec {
  credential: string;
  status: 'ok' | 'failed';
  detail: string;
}

/**
 * `auth status --check`: each credential the selected profile would use (environment first) is
 * tried with the service, with the cheapest call that needs it:
 * the OAuth 1.0a user token with GET /1.1/account/verify_credentials.json, the app-only bearer with
 * GET /1.1/application/rate_limit_status.json, the OAuth 2.0 user token with GET /2/users/me
 * (refreshed first when due, as any command would).
 */
export async function authCheck(ctx: Context): Promise<void> {
  const name = await ctx.profileName();
  const p = (await ctx.store()).profile(name) ?? {};
  const c = await ctx.credentials();
  const http = await ctx.http();
  const rows: CheckRow[] = [];
  const from = (src: string | undefined) => (src === 'env' ? ' (from env)' : '');
  const attempt = async (credential: string, call: () => Promise<string>) => {
    try {
      rows.push({ credential, status: 'ok', detail: await call() });
    } catch (e) {
      const err = e as Error & { hint?: string };
      rows.push({ credential, status: 'failed', detail: err.message });
      if (err.hint) ctx.io.info(`${credential}: ${err.hint}`);
    }
  };
  const user = !!(c.api_key && c.api_secret && c.access_token && c.access_token_secret);
  if (user) {
    await attempt(`oauth1 user${from(c.source.access_token)}`, async () => {
      const res = await http.request<{ id_str?: string; screen_name?: string }>({
        method: OAUTH_ENDPOINTS.verifyCredentials.method,
        path: OAUTH_ENDPOINTS.verifyCredentials.path,
        auth: 'user',
      });
      const level = res.headers['x-access-level'];
      return `@${res.data?.screen_name ?? '?'} (${res.data?.id_str ?? '?'})${level ? `, ${level}` : ''}`;
    });
  }
  // A bearer in use: the environment's, or the one cached for this key (never a new one asked for).
  const bearer = c.bearer_token && (c.source.bearer_token === 'env' || !p.bearer_key || p.bearer_key === c.api_key);
  if (bearer) {
    await attempt(`bearer${c.source.bearer_token === 'env' ? ' (from env)' : ' (cached)'}`, async () => {
      await http.request({
        method: OAUTH_ENDPOINTS.rateLimitStatus.method,
        path: OAUTH_ENDPOINTS.rateLimitStatus.path,
        auth: 'app',
        query: { resources: 'application' },
      });
      return 'accepted (app-only)';
    });
  } else if (c.api_key && c.api_secret && !user) {
    // Only the app's key and secret: they are checked by what they are for, obtaining the bearer (cached, as every command would).
    await attempt(`app key${from(c.source.api_key)}`, async () => {
      await ctx.bearer();
      return 'bearer obtained and cached';
    });
  }
  if (p.oauth2_access_token) {
    await attempt('oauth2 user', async () => {
      const res = await http.request<{ data?: { id?: string; username?: string } }>({
        method: OAUTH2_ENDPOINTS.me.method,
        path: OAUTH2_ENDPOINTS.me.path,
        auth: 'oauth2',
      });
      return `@${res.data?.data?.username ?? '?'} (${res.data?.data?.id ?? '?'})`;
    });
  }
  if (rows.length === 0) {
    throw new CheckFailed(`profile "${name}" has no credentials to check`, {
      hint: 'run `xctl auth set --api-key KEY --api-secret -`, `xctl auth login`, or try the sandbox: `xctl sandbox start --configure`',
    });
  }
  await printList(ctx.io, await ctx.output(), rows, { columns: ['credential', 'status', 'detail'] });
  const failed = rows.filter((r) => r.status === 'failed');
  if (failed.length) {
    throw new CheckFailed(
      `${failed.length} of ${rows.length} credential${rows.length === 1 ? '' : 's'} of profile "${name}" failed the check: ${failed.map((r) => r.credential).join(', ')}`,
    );
  }
  ctx.io.info(
    rows.length === 1
      ? `the credential of profile "${name}" works`
      : `all ${rows.length} credentials of profile "${name}" work`,
  );
}
