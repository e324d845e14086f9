// Where a command's HTTP goes and how patiently: the API and ads bases, --max-wait, XCTL_TIMEOUT,
// and the HTTP client itself, made on first use (a command that sends nothing never loads it).
import { baseFor } from './base-url.js';
import type { Clock } from './clock.js';
import type { CredentialCache } from './credentials.js';
import { UsageError } from './errors.js';
import type { HttpClient } from './http.js';
import type { IO } from './io.js';
import type { Transport } from './transport.js';

/** The global flags that choose where requests go and how long to wait. */
export interface HttpFlags {
  baseUrl?: string;
  sandbox?: boolean;
  verbose?: boolean;
  maxWait?: string;
}

export interface HttpFactoryInit {
  flags: HttpFlags;
  env: Record<string, string | undefined>;
  io: IO;
  clock: Clock;
  signal: AbortSignal;
  version: string;
  credentials: CredentialCache;
  /** The profile's base_url setting. */
  profileBase: () => Promise<string | undefined>;
  /** The HTTP wire; node:http when absent (tests pass an HTTP registry). */
  transport?: Transport;
}

export class HttpFactory {
  private client?: HttpClient;
  private basePromise?: Promise<string | undefined>;

  constructor(private readonly o: HttpFactoryInit) {}

  /** API base URL: --base-url, XCTL_BASE_URL, the profile's base_url, else the platform. */
  async apiBase(): Promise<string> {
    return baseFor('api', { override: await this.baseOverride() });
  }

  /** Ads API base URL: the same override, else the ads host (its sandbox host with --sandbox). */
  async adsBase(): Promise<string> {
    return baseFor('ads', { override: await this.baseOverride(), sandbox: this.o.flags.sandbox });
  }

  /** Read once per command: a login sends its code where it started, whatever the store says later. */
  private baseOverride(): Promise<string | undefined> {
    // A CI variable that was never set arrives empty: falling back to production would be silent.
    if (
      this.o.flags.baseUrl === undefined &&
      this.o.env.XCTL_BASE_URL !== undefined &&
      this.o.env.XCTL_BASE_URL.trim() === ''
    ) {
      return Promise.reject(
        new UsageError('XCTL_BASE_URL is set but empty: give a base URL, or unset the variable to use the platform', {
          flag: '--base-url',
        }),
      );
    }
    if (this.o.flags.baseUrl !== undefined && this.o.flags.baseUrl.trim() === '')
      return Promise.reject(new UsageError('--base-url is empty', { flag: '--base-url' }));
    this.basePromise ??= (async () =>
      this.o.flags.baseUrl ?? this.o.env.XCTL_BASE_URL ?? (await this.o.profileBase().catch(() => undefined)))();
    return this.basePromise;
  }

  maxWaitSec(): number {
    const v = this.o.flags.maxWait;
    if (v === undefined) return 900;
    if (!/^\d+$/.test(v))
      throw new UsageError(`--max-wait must be a whole number of seconds (got "${v}")`, { flag: '--max-wait' });
    return Number(v);
  }

  /** XCTL_TIMEOUT: seconds one request attempt may take from sending to the last byte. */
  private deadlineMs(): number | undefined {
    const v = this.o.env.XCTL_TIMEOUT;
    if (v === undefined || v === '') return undefined;
    if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0)
      throw new UsageError(`XCTL_TIMEOUT must be a positive number of seconds (got "${v}")`);
    return Number(v) * 1000;
  }

  /** The command's HTTP client, made once. */
  async http(): Promise<HttpClient> {
    if (!this.client) {
      const { HttpClient } = await import('./http.js');
      const { env, credentials, clock } = this.o;
      const retryBase = env.XCTL_RETRY_BASE_MS ? Number(env.XCTL_RETRY_BASE_MS) : undefined;
      this.client = new HttpClient({
        apiBase: await this.apiBase(),
        adsBase: await this.adsBase(),
        io: this.o.io,
        credentials: () => credentials.credentials(),
        bearer: () => credentials.bearer(),
        oauth2: (o) => credentials.oauth2AccessToken(o),
        onBearerRejected: () => credentials.bearerRejected(),
        verbose: !!this.o.flags.verbose,
        maxWaitSec: this.maxWaitSec(),
        retryBaseMs: retryBase,
        deadlineMs: this.deadlineMs(),
        userAgent: `xctl/${this.o.version}`,
        signal: this.o.signal,
        now: () => clock.now(),
        sleep: (ms, s) => clock.sleep(ms, s),
        transport: this.o.transport,
      });
    }
    return this.client;
  }
}
