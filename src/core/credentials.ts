// The credentials a command signs with: environment over profile, the app-only bearer and its
// cache (and what to do when the service refuses it, 401 code 89), and the OAuth 2.0 user token,
// refreshed under a lock file so that concurrent processes never spend one refresh token twice.
import { OAUTH_ENDPOINTS } from '../contract/oauth.js';
import type { Clock } from './clock.js';
import { resolveCredentials, secretsOf, type Credentials, type Profile } from './config.js';
import { AuthError, errnoCode, errorMessage } from './errors.js';
import type { HttpClient } from './http.js';
import type { IO } from './io.js';
import type { Profiles } from './profiles.js';

export interface CredentialsInit {
  env: Record<string, string | undefined>;
  profiles: Profiles;
  /** Every secret read or obtained is registered here for redaction; --verbose notes go here. */
  io: IO;
  clock: Clock;
  verbose: boolean;
  /** The command's HTTP client (made on first use), for the token endpoints. */
  http: () => Promise<HttpClient>;
}

export class CredentialCache {
  private creds?: Credentials;

  constructor(private readonly o: CredentialsInit) {}

  /** Drops what was read: the profile changed. */
  forget(): void {
    this.creds = undefined;
  }

  /** Writes to the selected profile and forgets what was read from it. */
  async updateProfile(patch: Partial<Profile>): Promise<Profile> {
    const next = await this.o.profiles.update(patch);
    this.creds = undefined;
    return next;
  }

  /** Credentials with environment over profile. Every secret is registered for redaction. */
  async credentials(): Promise<Credentials> {
    if (!this.creds) {
      const name = await this.o.profiles.name();
      const profile = (await this.o.profiles.store()).profile(name);
      this.creds = resolveCredentials(name, profile, this.o.env);
      for (const s of secretsOf(this.creds, profile)) this.o.io.addSecret(s);
      // A bearer cached for another key is not this app's.
      if (
        this.creds.source.bearer_token === 'profile' &&
        profile?.bearer_key &&
        profile.bearer_key !== this.creds.api_key
      ) {
        delete this.creds.bearer_token;
        delete this.creds.source.bearer_token;
      }
    }
    return this.creds;
  }

  /**
   * The service refused the bearer this command sent (401 code 89). Only what was used is dropped:
   * XCTL_BEARER_TOKEN is the user's to fix (the cached bearer stays), and a cached bearer is
   * forgotten only if the store still holds that one (another process may have replaced it).
   */
  async bearerRejected(): Promise<string> {
    const c = await this.credentials();
    const name = await this.o.profiles.name();
    if (c.source.bearer_token === 'env') {
      return `XCTL_BEARER_TOKEN is not a valid bearer token (the service refused it): unset it to use profile "${name}"'s own, or set a current one (\`xctl auth app-token\` obtains one); the cached bearer was left alone`;
    }
    const used = c.bearer_token;
    if (used && (await this.o.profiles.profile())?.bearer_token === used) {
      await this.updateProfile({ bearer_token: undefined, bearer_key: undefined });
    }
    return `the cached bearer token of profile "${name}" was rejected (invalidated elsewhere?) and has been dropped; run the command again to obtain a new one`;
  }

  /**
   * The app-only bearer: environment, then the cached one, else obtained with the app key and
   * secret (POST /oauth2/token) and cached in the profile. The service keeps one per app, so
   * asking again is both pointless and punished (403 code 99).
   */
  async bearer(opts: { cacheOnly?: boolean } = {}): Promise<string> {
    const c = await this.credentials();
    if (c.bearer_token) return c.bearer_token;
    if (opts.cacheOnly) throw new AuthError('no bearer token is cached', { hint: 'run `xctl auth app-token`' });
    if (!c.api_key || !c.api_secret) {
      throw new AuthError('an app-only bearer token is needed and no API key and secret are set', {
        hint: 'run `xctl auth set --api-key KEY --api-secret -`, or set XCTL_BEARER_TOKEN',
      });
    }
    // One process asks; the others wait on the lock and take what it cached (file-lock.ts).
    const { obtainOnce } = await import('./file-lock.js');
    const { cachedBearer } = await import('./bearer-cache.js');
    const store = await this.o.profiles.store();
    const name = await this.o.profiles.name();
    // No folder named for the store (HOME unset): asked for, used, never cached nor locked.
    const got = store.unnamed
      ? await this.newBearer(c)
      : await obtainOnce(
          `${store.path}.bearer.lock`,
          () => cachedBearer(store.profile(name), c.api_key),
          () => this.newBearer(c),
        );
    this.o.io.addSecret(got);
    this.creds = { ...c, bearer_token: got, source: { ...c.source, bearer_token: 'profile' } };
    return got;
  }

  /** POST /oauth2/token (client credentials), cached in the profile. */
  private async newBearer(c: Credentials): Promise<string> {
    const http = await this.o.http();
    const res = await http.request<{ token_type?: string; access_token?: string }>({
      method: OAUTH_ENDPOINTS.bearerToken.method,
      path: OAUTH_ENDPOINTS.bearerToken.path,
      auth: 'basic',
      form: { grant_type: 'client_credentials' },
    });
    const token = res.data?.access_token;
    if (res.data?.token_type !== 'bearer' || !token)
      throw new AuthError('the token endpoint did not return a bearer token');
    this.o.io.addSecret(token);
    // Cached even when the key comes from the environment: CI jobs run many processes, and the
    // service punishes asking again (403 code 99). bearer_key ties it to the key it belongs to.
    // Best effort: a read-only or absent HOME (a CI runner) must not fail a command that only reads.
    if ((await this.o.profiles.store()).unnamed) {
      this.o.io.info('note: the bearer token is not cached: HOME is not set (set XCTL_CONFIG_DIR to cache it)');
      return token;
    }
    // Whatever stops the write (a read-only folder, a full disk, a locked keychain) is reported,
    // never the command's failure: the token in hand is good.
    await this.updateProfile({ bearer_token: token, bearer_key: c.api_key }).catch((e: unknown) => {
      const why = errnoCode(e) ?? errorMessage(e);
      this.o.io.info(
        `note: the bearer token could not be cached (${why}); set XCTL_CONFIG_DIR to a writable folder to cache it`,
      );
    });
    return token;
  }

  /**
   * The OAuth 2.0 user access token of the profile, refreshed first when it has expired or expires
   * within a minute (or when the service refused `rejected`). The store is read afresh each time,
   * and the refresh runs under a lock file, so concurrent xctl processes never spend the same
   * refresh token: the one that waited finds the rotated pair and uses it.
   */
  async oauth2AccessToken(o: { rejected?: string } = {}): Promise<string> {
    const { needsRefresh } = await import('./oauth2.js');
    const store = await this.o.profiles.store();
    const name = await this.o.profiles.name();
    const p = store.profile(name);
    if (!p?.oauth2_access_token) {
      throw new AuthError(`profile "${name}" holds no OAuth 2.0 user token`, {
        hint: 'run `xctl auth login --oauth2`',
      });
    }
    this.o.io.addSecret(p.oauth2_access_token);
    this.o.io.addSecret(p.oauth2_refresh_token);
    if (!o.rejected && !needsRefresh({ expires_at: expiresAt(p) }, this.o.clock.now())) return p.oauth2_access_token;
    const { withFileLock } = await import('./file-lock.js');
    return withFileLock(`${store.path}.oauth2-refresh.lock`, () =>
      this.refreshLocked(name, p.oauth2_access_token!, o.rejected),
    );
  }

  /** Under the refresh lock: the pair another process rotated meanwhile, else a refresh. */
  private async refreshLocked(name: string, before: string, rejected: string | undefined): Promise<string> {
    const { needsRefresh, refreshGrant } = await import('./oauth2.js');
    const q = (await this.o.profiles.store()).profile(name);
    const now = this.o.clock.now();
    if (!q?.oauth2_access_token)
      throw new AuthError(`profile "${name}" no longer holds an OAuth 2.0 user token (logged out meanwhile?)`, {
        hint: 'run `xctl auth login --oauth2`',
      });
    // Another process refreshed while this one waited: its pair is the current one.
    if (q.oauth2_access_token !== (rejected ?? before) && !needsRefresh({ expires_at: expiresAt(q) }, now))
      return q.oauth2_access_token;
    if (!q.oauth2_refresh_token) {
      throw new AuthError(
        rejected
          ? 'the OAuth 2.0 token was refused and there is no refresh token'
          : 'the OAuth 2.0 token has expired and there is no refresh token',
        {
          hint: 'log in again: `xctl auth login --oauth2` (with the offline.access scope, xctl refreshes by itself)',
        },
      );
    }
    const c = await this.credentials();
    const clientId = q.oauth2_client_id ?? c.client_id;
    if (!clientId)
      throw new AuthError('the OAuth 2.0 token cannot be refreshed: no client id is set', {
        hint: 'run `xctl auth set --client-id ID`, or log in again',
      });
    // The secret belongs to the client the token was issued to; a public client has none.
    const clientSecret = !q.oauth2_client_id || q.oauth2_client_id === c.client_id ? c.client_secret : undefined;
    let t;
    try {
      t = await refreshGrant(
        await this.o.http(),
        { clientId, clientSecret },
        q.oauth2_refresh_token,
        this.o.clock.now(),
      );
    } catch (e) {
      if (e instanceof AuthError)
        e.hint =
          'the refresh token was refused (expired, revoked, or already used): log in again with `xctl auth login --oauth2`';
      throw e;
    }
    this.o.io.addSecret(t.access_token);
    this.o.io.addSecret(t.refresh_token);
    // One write replaces the whole pair: a reader sees either the old pair or the new one.
    await this.updateProfile({
      oauth2_access_token: t.access_token,
      oauth2_refresh_token: t.refresh_token ?? q.oauth2_refresh_token,
      oauth2_expires_at: new Date(t.expires_at).toISOString(),
      oauth2_scopes: t.scopes.length ? t.scopes.join(' ') : q.oauth2_scopes,
    });
    if (this.o.verbose)
      this.o.io.info(
        `refreshed the OAuth 2.0 token (valid until ${new Date(t.expires_at).toISOString().replace(/\.\d+Z$/, 'Z')})`,
      );
    return t.access_token;
  }
}

function expiresAt(q: Profile): number {
  return Date.parse(q.oauth2_expires_at ?? '') || 0;
}
