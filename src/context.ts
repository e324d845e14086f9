// Context: the only door to the outside world for commands (io, store, credentials, http, clock, env).
import { IO, type IOStreams } from './core/io.js';
import { Store, resolveCredentials, checkProfileName, type Credentials, type Profile } from './core/config.js';
import type { HttpClient } from './core/http.js';
import type { Transport } from './core/transport.js';
import { abortableSleep } from './core/sleep.js';
import { baseFor } from './contract/hosts.js';
import { ADS_ID } from './contract/ids.js';
import { OAUTH_ENDPOINTS } from './contract/oauth.js';
import { AuthError, RetryLaterError, UsageError, XctlError } from './core/errors.js';
import { parseFields, parseFormat, type OutputSettings } from './core/output.js';
import { parseDuration, withEnvGlobals } from './core/env-globals.js';

/**
 * The command's signal, aborted also when --deadline passes (its reason a RetryLaterError, exit
 * 75): every request and every wait of the command hears it, so retries cannot outlast it.
 */
function withDeadline(signal: AbortSignal, deadline: string | undefined): AbortSignal {
  if (deadline === undefined) return signal;
  const ms = parseDuration(deadline);
  const c = new AbortController();
  const t = setTimeout(() => c.abort(new RetryLaterError(`the --deadline of ${/^[\d.]+$/.test(deadline) ? `${deadline}s` : deadline} passed before the command finished`, { hint: 'run it again later, or give it longer (--deadline / XCTL_DEADLINE)' })), ms);
  t.unref?.();
  return AbortSignal.any([signal, c.signal]);
}

export interface GlobalOptions {
  profile?: string;
  /** --json: true, '' (no field list) or the field list of `--json a,b`. */
  json?: boolean | string;
  output?: string;
  fields?: string;
  jq?: string;
  includeCursor?: boolean;
  header?: boolean;
  baseUrl?: string;
  sandbox?: boolean;
  account?: string;
  verbose?: boolean;
  quiet?: boolean;
  color?: boolean;
  progress?: boolean;
  yes?: boolean;
  maxWait?: string;
  /** --deadline / XCTL_DEADLINE: the whole command, every attempt and wait included. */
  deadline?: string;
}

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: abortableSleep };

export interface ContextInit {
  streams: IOStreams;
  env: Record<string, string | undefined>;
  globals?: GlobalOptions;
  clock?: Clock;
  signal?: AbortSignal;
  cwd?: string;
  version?: string;
  /** The HTTP wire; node:http when absent (tests pass an HTTP registry). */
  transport?: Transport;
}

export class Context {
  readonly io: IO;
  readonly env: Record<string, string | undefined>;
  readonly globals: GlobalOptions;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly cwd: string;
  readonly version: string;
  private storePromise?: Promise<Store>;
  private outputPromise?: Promise<OutputSettings>;
  private asked = false;
  private httpClient?: HttpClient;
  private creds?: Credentials;
  private newProfileAllowed = false;
  private profileChecked = false;
  /** The HTTP wire this context was given (tests), handed on to contexts it makes. */
  readonly transport?: Transport;

  constructor(init: ContextInit) {
    this.env = init.env;
    this.globals = withEnvGlobals(init.globals ?? {}, init.env);
    this.clock = init.clock ?? systemClock;
    this.signal = withDeadline(init.signal ?? new AbortController().signal, this.globals.deadline);
    this.cwd = init.cwd ?? '.';
    this.version = init.version ?? '0.0.0';
    this.transport = init.transport;
    this.io = new IO(init.streams, {
      env: init.env,
      color: this.globals.color === false ? false : undefined,
      quiet: this.globals.quiet,
      progress: this.globals.progress,
    });
  }

  get verbose(): boolean {
    return !!this.globals.verbose;
  }

  /**
   * Output settings: --json / -o / --fields / --jq / --header / --include-cursor, else the
   * profile's `output` setting, else TTY-based. A --jq program is compiled here, so a typo fails
   * before anything is sent.
   */
  output(): Promise<OutputSettings> {
    this.asked = true;
    return this.checkOutput();
  }

  /** Resolves (and so checks) the output settings without counting as the command asking for them. */
  checkOutput(): Promise<OutputSettings> {
    this.outputPromise ??= this.resolveOutput();
    return this.outputPromise;
  }

  /** Whether the command asked for its output settings (a --jq it never used is reported). */
  get outputAsked(): boolean {
    return this.asked;
  }

  private async resolveOutput(): Promise<OutputSettings> {
    const g = this.globals;
    const jsonFields = typeof g.json === 'string' && g.json !== '' ? parseFields(g.json, '--json') : undefined;
    let format = parseFormat(g.output ?? this.env.XCTL_OUTPUT, g.json !== undefined && g.json !== false);
    if (!format) {
      const p = await this.profile().catch(() => undefined);
      if (p?.output) format = parseFormat(p.output);
    }
    if (jsonFields && g.fields !== undefined) throw new UsageError('--json FIELDS and --fields both choose the fields: give one', { flag: '--fields' });
    const settings: OutputSettings = { format, fields: jsonFields ?? parseFields(g.fields) };
    // `xctl request -H/--header` is an HTTP header (a list): only the global flag's true counts.
    if (g.header === true) settings.header = true;
    if (g.includeCursor) settings.includeCursor = true;
    if (g.jq !== undefined) {
      if (g.jq.trim() === '') throw new UsageError("--jq needs a jq program, e.g. --jq '.[].id'", { flag: '--jq' });
      if (g.output !== undefined && g.output !== 'json') throw new UsageError(`--jq filters the JSON output: it cannot be combined with -o ${g.output}`, { flag: '--jq' });
      const { checkJq } = await import('./core/jq.js');
      await checkJq(g.jq);
      settings.jq = g.jq;
      settings.format = 'json';
    }
    return settings;
  }

  /** JSON output requested: errors are printed as JSON too. */
  get wantsJson(): boolean {
    const g = this.globals;
    return (g.json !== undefined && g.json !== false) || g.output === 'json' || g.output === 'jsonl';
  }

  store(): Promise<Store> {
    this.storePromise ??= Store.open(this.env);
    return this.storePromise;
  }

  /**
   * The selected profile: --profile, XCTL_PROFILE, else the store's default. A name given
   * explicitly must exist (a typo would otherwise act on, or create, an empty profile), except in
   * the commands that create profiles, which call allowNewProfile() first.
   */
  async profileName(): Promise<string> {
    const explicit = this.globals.profile ?? this.env.XCTL_PROFILE;
    const store = await this.store();
    if (!explicit) return store.defaultProfile;
    const name = checkProfileName(explicit);
    if (!this.newProfileAllowed && !this.profileChecked) {
      const known = Object.keys(store.profiles());
      if (!known.includes(name) && name !== store.defaultProfile) {
        const { didYouMean } = await import('./core/suggest.js');
        // commander fills --profile from XCTL_PROFILE: the same value means it came from there.
        const from = this.env.XCTL_PROFILE === name ? ' (from XCTL_PROFILE)' : '';
        throw new UsageError(`unknown profile "${name}"${from}${didYouMean(name, known)}`, {
          flag: '--profile',
          hint: known.length
            ? `profiles: ${known.join(', ')}; create a new one with \`xctl --profile ${name} auth set ...\` or \`auth login\``
            : `no profile exists yet: create one with \`xctl --profile ${name} auth set ...\`, \`auth login\`, \`auth import --twurlrc\` or \`sandbox start --configure\``,
        });
      }
      this.profileChecked = true;
    }
    return name;
  }

  /** For the commands that create profiles (auth set, login, import, sandbox start --configure): an unknown --profile is a new one. */
  allowNewProfile(): void {
    this.newProfileAllowed = true;
  }

  /** True when --profile or XCTL_PROFILE names the profile (not the store's default). */
  get explicitProfile(): string | undefined {
    return this.globals.profile ?? this.env.XCTL_PROFILE;
  }

  async profile(): Promise<Profile | undefined> {
    return (await this.store()).profile(await this.profileName());
  }

  async updateProfile(patch: Partial<Profile>): Promise<Profile> {
    const store = await this.store();
    const next = store.updateProfile(await this.profileName(), patch);
    this.creds = undefined;
    return next;
  }

  /** Credentials with environment over profile. Every secret is registered for redaction. */
  async credentials(): Promise<Credentials> {
    if (!this.creds) {
      const name = await this.profileName();
      const profile = (await this.store()).profile(name);
      this.creds = resolveCredentials(name, profile, this.env);
      for (const f of ['api_secret', 'access_token', 'access_token_secret', 'bearer_token', 'client_secret'] as const) this.io.addSecret(this.creds[f]);
      // A bearer cached for another key is not this app's.
      if (this.creds.source.bearer_token === 'profile' && profile?.bearer_key && profile.bearer_key !== this.creds.api_key) {
        delete this.creds.bearer_token;
        delete this.creds.source.bearer_token;
      }
    }
    return this.creds;
  }

  /** API base URL: --base-url, XCTL_BASE_URL, the profile's base_url, else the platform. */
  async apiBase(): Promise<string> {
    return baseFor('api', { override: await this.baseOverride() });
  }

  /** Ads API base URL: the same override, else the ads host (its sandbox host with --sandbox). */
  async adsBase(): Promise<string> {
    return baseFor('ads', { override: await this.baseOverride(), sandbox: this.globals.sandbox });
  }

  private async baseOverride(): Promise<string | undefined> {
    // A CI variable that was never set arrives empty: falling back to production would be silent.
    if (this.globals.baseUrl === undefined && this.env.XCTL_BASE_URL !== undefined && this.env.XCTL_BASE_URL.trim() === '') {
      throw new UsageError('XCTL_BASE_URL is set but empty: give a base URL, or unset the variable to use the platform', { flag: '--base-url' });
    }
    if (this.globals.baseUrl !== undefined && this.globals.baseUrl.trim() === '') throw new UsageError('--base-url is empty', { flag: '--base-url' });
    return this.globals.baseUrl ?? this.env.XCTL_BASE_URL ?? (await this.profile().catch(() => undefined))?.base_url;
  }

  /** The ads account: --account, XCTL_ACCOUNT_ID, then the profile's account_id. */
  async accountId(): Promise<string> {
    const v = this.globals.account ?? this.env.XCTL_ACCOUNT_ID ?? (await this.profile().catch(() => undefined))?.account_id;
    if (!v) {
      throw new UsageError('no ads account given', {
        flag: '--account',
        hint: 'pass --account ID, set XCTL_ACCOUNT_ID, or `xctl config set account_id ID` (see `xctl ads accounts list`)',
      });
    }
    if (!ADS_ID.test(v)) throw new UsageError(`--account must be an account id (got "${v}")`, { flag: '--account' });
    return v;
  }

  maxWaitSec(): number {
    const v = this.globals.maxWait;
    if (v === undefined) return 900;
    if (!/^\d+$/.test(v)) throw new UsageError(`--max-wait must be a whole number of seconds (got "${v}")`, { flag: '--max-wait' });
    return Number(v);
  }

  /** XCTL_TIMEOUT: seconds one request attempt may take from sending to the last byte. */
  private deadlineMs(): number | undefined {
    const v = this.env.XCTL_TIMEOUT;
    if (v === undefined || v === '') return undefined;
    if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0) throw new UsageError(`XCTL_TIMEOUT must be a positive number of seconds (got "${v}")`);
    return Number(v) * 1000;
  }

  async http(): Promise<HttpClient> {
    if (!this.httpClient) {
      const { HttpClient } = await import('./core/http.js');
      const retryBase = this.env.XCTL_RETRY_BASE_MS ? Number(this.env.XCTL_RETRY_BASE_MS) : undefined;
      this.httpClient = new HttpClient({
        apiBase: await this.apiBase(),
        adsBase: await this.adsBase(),
        io: this.io,
        credentials: () => this.credentials(),
        bearer: () => this.bearer(),
        oauth2: (o) => this.oauth2AccessToken(o),
        onBearerRejected: () => this.bearerRejected(),
        verbose: this.verbose,
        maxWaitSec: this.maxWaitSec(),
        retryBaseMs: retryBase,
        deadlineMs: this.deadlineMs(),
        userAgent: `xctl/${this.version}`,
        signal: this.signal,
        now: () => this.clock.now(),
        sleep: (ms, s) => this.clock.sleep(ms, s),
        transport: this.transport,
      });
    }
    return this.httpClient;
  }

  /**
   * The service refused the bearer this command sent (401 code 89). Only what was used is dropped:
   * XCTL_BEARER_TOKEN is the user's to fix (the cached bearer stays), and a cached bearer is
   * forgotten only if the store still holds that one (another process may have replaced it).
   */
  private async bearerRejected(): Promise<string> {
    const c = await this.credentials();
    const name = await this.profileName();
    if (c.source.bearer_token === 'env') {
      return `XCTL_BEARER_TOKEN is not a valid bearer token (the service refused it): unset it to use profile "${name}"'s own, or set a current one (\`xctl auth app-token\` obtains one); the cached bearer was left alone`;
    }
    const used = c.bearer_token;
    if (used && (await this.profile())?.bearer_token === used) {
      await this.updateProfile({ bearer_token: undefined, bearer_key: undefined } as Partial<Profile>);
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
    const http = await this.http();
    const res = await http.request<{ token_type?: string; access_token?: string }>({
      method: OAUTH_ENDPOINTS.bearerToken.method,
      path: OAUTH_ENDPOINTS.bearerToken.path,
      auth: 'basic',
      form: { grant_type: 'client_credentials' },
    });
    const token = res.data?.access_token;
    if (res.data?.token_type !== 'bearer' || !token) throw new AuthError('the token endpoint did not return a bearer token');
    this.io.addSecret(token);
    // Cached even when the key comes from the environment: CI jobs run many processes, and the
    // service punishes asking again (403 code 99). bearer_key ties it to the key it belongs to.
    // Best effort: a read-only or absent HOME (a CI runner) must not fail a command that only reads.
    await this.updateProfile({ bearer_token: token, bearer_key: c.api_key } as Partial<Profile>).catch((e: NodeJS.ErrnoException) => {
      if (e instanceof XctlError || !e.code) throw e;
      this.io.info(`note: the bearer token could not be cached (${e.code}; set XCTL_CONFIG_DIR to a writable folder to cache it)`);
    });
    this.creds = { ...c, bearer_token: token, source: { ...c.source, bearer_token: 'profile' } };
    return token;
  }

  /**
   * The OAuth 2.0 user access token of the profile, refreshed first when it has expired or expires
   * within a minute (or when the service refused `rejected`). The store is read afresh each time,
   * and the refresh runs under a lock file, so concurrent xctl processes never spend the same
   * refresh token: the one that waited finds the rotated pair and uses it.
   */
  async oauth2AccessToken(o: { rejected?: string } = {}): Promise<string> {
    const { needsRefresh, refreshGrant } = await import('./core/oauth2.js');
    const store = await this.store();
    const name = await this.profileName();
    const read = () => store.profile(name);
    const p = read();
    if (!p?.oauth2_access_token) {
      throw new AuthError(`profile "${name}" holds no OAuth 2.0 user token`, { hint: 'run `xctl auth login --oauth2`' });
    }
    this.io.addSecret(p.oauth2_access_token);
    this.io.addSecret(p.oauth2_refresh_token);
    const expiresAt = (q: Profile) => Date.parse(q.oauth2_expires_at ?? '') || 0;
    const fresh = (q: Profile) => !needsRefresh({ expires_at: expiresAt(q) }, this.clock.now());
    if (!o.rejected && fresh(p)) return p.oauth2_access_token;
    const { withFileLock } = await import('./core/file-lock.js');
    return withFileLock(`${store.path}.oauth2-refresh.lock`, async () => {
      const q = read();
      if (!q?.oauth2_access_token) throw new AuthError(`profile "${name}" no longer holds an OAuth 2.0 user token (logged out meanwhile?)`, { hint: 'run `xctl auth login --oauth2`' });
      // Another process refreshed while this one waited: its pair is the current one.
      if (q.oauth2_access_token !== (o.rejected ?? p.oauth2_access_token) && fresh(q)) return q.oauth2_access_token;
      if (!q.oauth2_refresh_token) {
        throw new AuthError(o.rejected ? 'the OAuth 2.0 token was refused and there is no refresh token' : 'the OAuth 2.0 token has expired and there is no refresh token', {
          hint: 'log in again: `xctl auth login --oauth2` (with the offline.access scope, xctl refreshes by itself)',
        });
      }
      const c = await this.credentials();
      const clientId = q.oauth2_client_id ?? c.client_id;
      if (!clientId) throw new AuthError('the OAuth 2.0 token cannot be refreshed: no client id is set', { hint: 'run `xctl auth set --client-id ID`, or log in again' });
      // The secret belongs to the client the token was issued to; a public client has none.
      const clientSecret = !q.oauth2_client_id || q.oauth2_client_id === c.client_id ? c.client_secret : undefined;
      let t;
      try {
        t = await refreshGrant(await this.http(), { clientId, clientSecret }, q.oauth2_refresh_token, this.clock.now());
      } catch (e) {
        if (e instanceof AuthError) e.hint = 'the refresh token was refused (expired, revoked, or already used): log in again with `xctl auth login --oauth2`';
        throw e;
      }
      this.io.addSecret(t.access_token);
      this.io.addSecret(t.refresh_token);
      // One write replaces the whole pair: a reader sees either the old pair or the new one.
      await this.updateProfile({
        oauth2_access_token: t.access_token,
        oauth2_refresh_token: t.refresh_token ?? q.oauth2_refresh_token,
        oauth2_expires_at: new Date(t.expires_at).toISOString(),
        oauth2_scopes: t.scopes.length ? t.scopes.join(' ') : q.oauth2_scopes,
      });
      if (this.verbose) this.io.info(`refreshed the OAuth 2.0 token (valid until ${new Date(t.expires_at).toISOString().replace(/\.\d+Z$/, 'Z')})`);
      return t.access_token;
    });
  }

  /** Asks before a destructive step: --yes skips; without a TTY and without --yes it refuses. */
  async confirm(question: string): Promise<boolean> {
    if (this.globals.yes) return true;
    if (!this.io.isStdinTTY) {
      throw new UsageError(`${question} — refusing without confirmation`, { flag: '--yes', hint: 'pass --yes to confirm when not at a terminal' });
    }
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: this.io.stdin, output: this.io.stderr });
    try {
      const a = await rl.question(`${question} [y/N] `);
      return /^y(es)?$/i.test(a.trim());
    } finally {
      rl.close();
    }
  }
}
