// Context: the only door to the outside world for commands. It holds what main.ts built (streams,
// environment, signal, clock, the HTTP wire) and hands each command the parts it uses, each made
// on first use: io, the output choice (core/output-settings), the selected profile
// (core/profiles), credentials (core/credentials) and the HTTP client (core/http-factory).
import { IO, type IOStreams } from './core/io.js';
import type { Credentials, Profile, Store } from './core/config.js';
import type { HttpClient } from './core/http.js';
import type { Transport } from './core/transport.js';
import { systemClock, type Clock } from './core/clock.js';
import { CredentialCache } from './core/credentials.js';
import { HttpFactory, type HttpFlags } from './core/http-factory.js';
import { OutputChoice, type OutputFlags } from './core/output-settings.js';
import { Profiles } from './core/profiles.js';
import { ADS_ID } from './contract/ids.js';
import { KEYCHAIN_UNREACHABLE, RetryLaterError, UsageError, XctlError } from './core/errors.js';
import type { OutputSettings } from './core/output.js';
import { parseDeadline, withEnvGlobals } from './core/env-globals.js';

/**
 * The command's signal, aborted also when --deadline passes (its reason a RetryLaterError, exit
 * 75): every request and every wait of the command hears it, so retries cannot outlast it.
 */
function withDeadline(signal: AbortSignal, deadline: string | undefined): AbortSignal {
  if (deadline === undefined) return signal;
  const ms = parseDeadline(deadline);
  const c = new AbortController();
  const t = setTimeout(
    () =>
      c.abort(
        new RetryLaterError(
          `the --deadline of ${/^[\d.]+$/.test(deadline) ? `${deadline}s` : deadline} passed before the command finished`,
          { hint: 'run it again later, or give it longer (--deadline / XCTL_DEADLINE)' },
        ),
      ),
    ms,
  );
  t.unref?.();
  return AbortSignal.any([signal, c.signal]);
}

export { systemClock, type Clock };

export interface GlobalOptions extends OutputFlags, HttpFlags {
  profile?: string;
  account?: string;
  quiet?: boolean;
  color?: boolean;
  progress?: boolean;
  yes?: boolean;
  /** --deadline / XCTL_DEADLINE: the whole command, every attempt and wait included. */
  deadline?: string;
}

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
  /** The HTTP wire this context was given (tests), handed on to contexts it makes. */
  readonly transport?: Transport;
  readonly profiles: Profiles;
  readonly outputChoice: OutputChoice;
  readonly creds: CredentialCache;
  readonly httpFactory: HttpFactory;

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
    this.profiles = new Profiles(this.env, this.globals.profile);
    const profile = () => this.profiles.profile().catch(() => undefined);
    this.outputChoice = new OutputChoice(this.globals, this.env, async () => (await profile())?.output);
    this.creds = new CredentialCache({
      env: this.env,
      profiles: this.profiles,
      io: this.io,
      clock: this.clock,
      verbose: this.verbose,
      http: () => this.http(),
    });
    this.httpFactory = new HttpFactory({
      flags: this.globals,
      env: this.env,
      io: this.io,
      clock: this.clock,
      signal: this.signal,
      version: this.version,
      credentials: this.creds,
      profileBase: async () => (await profile())?.base_url,
      transport: this.transport,
    });
  }

  get verbose(): boolean {
    return !!this.globals.verbose;
  }

  /** Output settings (core/output-settings.ts); a --jq program is compiled here. */
  output(): Promise<OutputSettings> {
    return this.outputChoice.settings();
  }

  /** Resolves (and so checks) the output settings without counting as the command asking for them. */
  checkOutput(): Promise<OutputSettings> {
    return this.outputChoice.check();
  }

  /** Whether the command asked for its output settings (a --jq it never used is reported). */
  get outputAsked(): boolean {
    return this.outputChoice.asked;
  }

  /** JSON output requested: errors are printed as JSON too. */
  get wantsJson(): boolean {
    return this.outputChoice.wantsJson;
  }

  store(): Promise<Store> {
    return this.profiles.store();
  }

  /** The selected profile: --profile, XCTL_PROFILE, else the store's default (core/profiles.ts). */
  profileName(): Promise<string> {
    return this.profiles.name();
  }

  /** For the commands that create profiles (auth set, login, import, sandbox start --configure): an unknown --profile is a new one. */
  allowNewProfile(): void {
    this.profiles.allowNew();
  }

  /** True when --profile or XCTL_PROFILE names the profile (not the store's default). */
  get explicitProfile(): string | undefined {
    return this.profiles.explicit;
  }

  profile(): Promise<Profile | undefined> {
    return this.profiles.profile();
  }

  updateProfile(patch: Partial<Profile>): Promise<Profile> {
    return this.creds.updateProfile(patch);
  }

  /** Credentials with environment over profile (core/credentials.ts). */
  credentials(): Promise<Credentials> {
    return this.creds.credentials();
  }

  apiBase(): Promise<string> {
    return this.httpFactory.apiBase();
  }

  adsBase(): Promise<string> {
    return this.httpFactory.adsBase();
  }

  /** The ads account: --account, XCTL_ACCOUNT_ID, then the profile's account_id. */
  async accountId(): Promise<string> {
    // A keychain out of reach is said as such (issue 46), not as a missing account.
    const inPassing = (e: unknown) => {
      if (e instanceof XctlError && e.code === KEYCHAIN_UNREACHABLE) throw e;
      return undefined;
    };
    const v = this.globals.account ?? this.env.XCTL_ACCOUNT_ID ?? (await this.profile().catch(inPassing))?.account_id;
    if (!v) {
      const none = await this.profiles.unselected();
      throw new UsageError(`no ads account given${none ? `: ${none.message}` : ''}`, {
        flag: '--account',
        hint:
          none?.hint ??
          'pass --account ID, set XCTL_ACCOUNT_ID, or `xctl config set account_id ID` (see `xctl ads accounts list`)',
      });
    }
    if (!ADS_ID.test(v)) throw new UsageError(`--account must be an account id (got "${v}")`, { flag: '--account' });
    return v;
  }

  maxWaitSec(): number {
    return this.httpFactory.maxWaitSec();
  }

  /** The command's HTTP client (core/http-factory.ts), made on first use. */
  http(): Promise<HttpClient> {
    return this.httpFactory.http();
  }

  /** The app-only bearer: environment, cache, else obtained and cached (core/credentials.ts). */
  bearer(opts: { cacheOnly?: boolean } = {}): Promise<string> {
    return this.creds.bearer(opts);
  }

  /** The OAuth 2.0 user access token, refreshed under a lock when due (core/credentials.ts). */
  oauth2AccessToken(o: { rejected?: string } = {}): Promise<string> {
    return this.creds.oauth2AccessToken(o);
  }

  /** Asks before a destructive step: --yes skips; without a TTY and without --yes it refuses. */
  async confirm(question: string): Promise<boolean> {
    if (this.globals.yes) return true;
    if (!this.io.isStdinTTY) {
      throw new UsageError(`${question} — refusing without confirmation`, {
        flag: '--yes',
        hint: 'pass --yes to confirm when not at a terminal',
      });
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
