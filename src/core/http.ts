// The HTTP client: base URLs, OAuth 1.0a / Basic / Bearer, retries with backoff and jitter,
// rate-limit waits, typed errors and a redacted --verbose trace, over a Transport (node:http
// unless one is given).
import type { Readable } from 'node:stream';
import type { IO } from './io.js';
import {
  ApiError,
  AuthError,
  NetworkError,
  RetryLaterError,
  UsageError,
  errnoCode,
  errorFromResponse,
} from './errors.js';
import { basicHeader, oauth1Header, percentEncode } from './oauth1.js';
import type { Credentials } from './config.js';
import { abortableSleep } from './sleep.js';
import { PLATFORM_HOST_NAMES, isLoopbackHost } from '../contract/hosts.js';
import { checkBaseUrl, checkRelativePath } from './base-url.js';
import { V1Code, hasCode } from '../contract/service-errors.js';
import type { Transport, TransportResponse } from './transport.js';
import { oauth2RequirementForPath } from '../contract/oauth2.js';
import { parseJson, stringifyJson } from './json.js';
import { bufferOf, isOneOf, isRecord } from '../contract/guards.js';

export type AuthMode = 'user' | 'app' | 'oauth2' | 'basic' | 'consumer' | 'none';
export type QueryValue = string | number | boolean | undefined | null | Array<string | number>;

export interface HttpRequest {
  method: string;
  /** Path (with optional query) relative to the host, or an absolute URL. */
  path: string;
  host?: 'api' | 'ads';
  query?: Record<string, QueryValue>;
  form?: Record<string, string | undefined> | Array<[string, string]>;
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
  auth?: AuthMode;
  /** Extra OAuth protocol parameters (oauth_callback, oauth_verifier). */
  oauthExtra?: Record<string, string>;
  /** OAuth 2.0: the scopes this request needs, for the hint when the token lacks one (default: the contract's entry for the path). */
  scopes?: readonly string[];
  /** Overrides the user token (request-token step of the three-legged flow). */
  token?: { token: string; tokenSecret: string };
  /** Safe to repeat after a failure mid-flight. Default: GET, HEAD, PUT, DELETE, OPTIONS. */
  idempotent?: boolean;
  /** Set false to see 5xx and network errors at once (the caller retries itself). */
  retry?: boolean;
  /** Return the body as a stream (caller consumes it). */
  stream?: boolean;
  /** Throw on non-2xx (default true). */
  throwOnError?: boolean;
  timeoutMs?: number;
  /** Largest body accepted (default MAX_RESPONSE_BYTES); a larger one is an error, not retried. */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface RateLimit {
  limit: number;
  remaining: number;
  reset: number; // unix seconds
  scope: 'account' | 'app';
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  data: T;
  text: string;
  url: string;
  rateLimit?: RateLimit;
  stream?: Readable;
}

export interface HttpConfig {
  apiBase: string;
  adsBase: string;
  io: IO;
  credentials: () => Promise<Credentials>;
  bearer: () => Promise<string>;
  /**
   * The OAuth 2.0 user access token, refreshed first when it has expired or is about to; with
   * `rejected`, the service refused that token (401): refresh unless another process already did.
   */
  oauth2?: (o: { rejected?: string }) => Promise<string>;
  /**
   * The service refused the app-only bearer (401 code 89): forget it if it was the cached one, and
   * answer the hint (a bearer from the environment is the user's to fix, not ours to drop).
   */
  onBearerRejected?: () => Promise<string | undefined>;
  verbose?: boolean;
  maxWaitSec?: number;
  retries?: number;
  retryBaseMs?: number;
  userAgent?: string;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The wire; node:http when absent. */
  transport?: Transport;
  /** Longest time one attempt may take from sending to the last byte (not only idle time). */
  deadlineMs?: number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
// `code` is an OAuth 2.0 authorization code: single-use, but worth a token until it is spent.
const SENSITIVE_PARAM = /token|secret|password|verifier|pin|key$|^code$/i;
// Connection-level failures where the request cannot have reached the server.
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** How much of a failed answer's body --verbose shows. */
const VERBOSE_BODY_CHARS = 4000;
/** The largest API answer read: the biggest list page is well under 1 MB; an endless body stops here. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Default overall deadline of one attempt: an idle timeout alone lets a server dribble forever. */
export const DEFAULT_DEADLINE_MS = 120_000;

export function parseRateLimit(h: Record<string, string>): RateLimit | undefined {
  for (const [prefix, scope] of [
    ['x-account-rate-limit-', 'account'],
    ['x-rate-limit-', 'app'],
  ] as const) {
    const limit = h[prefix + 'limit'];
    const remaining = h[prefix + 'remaining'];
    const reset = h[prefix + 'reset'];
    if (limit !== undefined && remaining !== undefined && reset !== undefined) {
      return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset), scope };
    }
  }
  return undefined;
}

export function encodeForm(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&');
}

function toPairs(form: HttpRequest['form']): Array<[string, string]> {
  if (!form) return [];
  if (Array.isArray(form)) return form;
  return Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined);
}

function redactUrl(u: URL): string {
  const c = new URL(u.toString());
  for (const k of [...c.searchParams.keys()]) if (SENSITIVE_PARAM.test(k)) c.searchParams.set(k, '[redacted]');
  return c.toString().replace(/%5Bredacted%5D/g, '[redacted]');
}

export class HttpClient {
  /** Last rate-limit reading per "METHOD path-template" (ids replaced by :id). */
  readonly rateLimits = new Map<string, RateLimit>();
  private transport?: Promise<Transport>;

  constructor(private cfg: HttpConfig) {
    if (cfg.transport) this.transport = Promise.resolve(cfg.transport);
  }

  get apiBase(): string {
    return this.cfg.apiBase;
  }
  get adsBase(): string {
    return this.cfg.adsBase;
  }

  url(req: Pick<HttpRequest, 'path' | 'host' | 'query'>): URL {
    const base = req.host === 'ads' ? this.cfg.adsBase : this.cfg.apiBase;
    checkRelativePath(req.path);
    const u = /^https?:\/\//.test(req.path)
      ? new URL(req.path)
      : new URL(req.path.replace(/^\/?/, '/'), base.replace(/\/+$/, '') + '/');
    if (!/^https?:\/\//.test(req.path)) {
      // keep any base path prefix (e.g. a proxy at https://proxy/x)
      const b = new URL(base);
      if (b.pathname !== '/' && !u.pathname.startsWith(b.pathname))
        u.pathname = b.pathname.replace(/\/$/, '') + u.pathname;
    }
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined || v === null) continue;
      u.searchParams.append(k, Array.isArray(v) ? v.join(',') : String(v));
    }
    checkBaseUrl(u.toString(), req.host === 'ads' ? '--base-url (ads host)' : '--base-url');
    return u;
  }

  /** True when the URL is on the configured API or ads host: the only places credentials go. */
  isConfiguredHost(url: URL): boolean {
    return [this.cfg.apiBase, this.cfg.adsBase].some((b) => new URL(b).origin === url.origin);
  }

  async request<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>> {
    const method = req.method.toUpperCase();
    const url = this.url(req);
    this.checkCredentialHost(url, req);
    const s: Attempts = {
      method,
      url,
      idempotent: req.idempotent ?? IDEMPOTENT.has(method),
      maxRetries: req.retry === false ? 0 : (this.cfg.retries ?? 4),
      attempt: 0,
      rateWaits: 0,
      backedOffMs: 0,
      uncertain: '',
      // OAuth 2.0: the token is fetched (and refreshed if due) once; a 401 refreshes once more.
      oauth2Token: req.auth === 'oauth2' ? await this.oauth2Token({}) : undefined,
      oauth2Retried: false,
    };
    for (;;) {
      let res: HttpResponse<T>;
      try {
        res = await this.once<T>(method, url, req, s.oauth2Token);
      } catch (e) {
        await this.retryAfterNetworkError(e, s, req);
        continue;
      }
      if (res.status === 429 && req.retry !== false) {
        await this.waitForRateLimit(res, s, req);
        continue;
      }
      if (res.status >= 500 && s.idempotent && s.attempt < s.maxRetries) {
        s.uncertain ||= `HTTP ${res.status}`;
        const wait = backoff(this.cfg.retryBaseMs ?? 500, s.attempt++);
        this.cfg.io.info(
          `HTTP ${res.status} from ${method} ${url.pathname}; retrying in ${fmtMs(wait)} (attempt ${s.attempt + 1} of ${s.maxRetries + 1})`,
        );
        await this.sleep(wait, req.signal);
        continue;
      }
      if (res.status === 401 && s.oauth2Token && !s.oauth2Retried) {
        // The service's clock decides expiry, not ours: a token it refuses is refreshed once.
        if (res.stream) res.stream.destroy();
        s.oauth2Retried = true;
        s.oauth2Token = await this.oauth2Token({ rejected: s.oauth2Token });
        continue;
      }
      if (res.status >= 300 && res.status < 400) throw redirectRefused(res, method, url);
      if (res.status >= 400 && req.throwOnError !== false) throw await this.failureOf(res, s, req);
      return res;
    }
  }

  /** gh ties a token to its host: a signed header for another host would hand it the credentials. */
  private checkCredentialHost(url: URL, req: HttpRequest): void {
    if ((req.auth ?? 'user') === 'none' || this.isConfiguredHost(url)) return;
    const hosts = [...new Set([this.cfg.apiBase, this.cfg.adsBase].map((b) => new URL(b).host))].join(', ');
    throw new UsageError(
      `refusing to send credentials to ${url.host}: they go only to the configured API and ads hosts (${hosts})`,
      {
        flag: '--auth',
        hint: 'pass --auth none to call another host without credentials, or point --base-url at it',
      },
    );
  }

  /**
   * A request that failed on the wire is retried when it cannot have been applied twice
   * (idempotent, or never sent); otherwise the error is thrown, saying the write may have landed.
   */
  private async retryAfterNetworkError(e: unknown, s: Attempts, req: HttpRequest): Promise<void> {
    if (!(e instanceof NetworkError)) throw e;
    const err = e;
    if (!err.final && s.attempt < s.maxRetries && (s.idempotent || err.notSent)) {
      // Set when a retry follows an attempt that may have been applied (a 5xx, or a connection
      // lost mid-flight): a later 404 or 409 may be that earlier attempt's doing.
      if (!err.notSent) s.uncertain ||= err.message;
      const wait = backoff(this.cfg.retryBaseMs ?? 500, s.attempt++);
      this.cfg.io.info(`${err.message}; retrying in ${fmtMs(wait)} (attempt ${s.attempt + 1} of ${s.maxRetries + 1})`);
      await this.sleep(wait, req.signal);
      return;
    }
    if (!s.idempotent && !err.notSent) {
      err.hint = `${err.hint ? err.hint + '; ' : ''}the ${s.method} may have been applied before the connection failed: check before repeating it`;
    }
    throw err;
  }

  /** A 429: waits as the headers (or the back-off) say and returns, or throws when over --max-wait. */
  private async waitForRateLimit(res: HttpResponse<unknown>, s: Attempts, req: HttpRequest): Promise<void> {
    const { method, url } = s;
    const maxWaitMs = (this.cfg.maxWaitSec ?? 900) * 1000;
    const p = rateLimitWait({
      headers: res.headers,
      rateLimit: res.rateLimit,
      now: this.now(),
      waits: s.rateWaits,
      backedOffMs: s.backedOffMs,
      maxWaitMs,
    });
    if (!p) {
      const reset = resetOf(res.headers, res.rateLimit);
      throw errorFromResponse(429, safeJson(res.text), {
        resetAt: reset !== undefined && reset * 1000 > this.now() ? reset : undefined,
      });
    }
    s.rateWaits++;
    if (p.why === 'backoff') s.backedOffMs += p.waitMs;
    if (this.cfg.io.canRedraw) {
      await this.countdown(p.waitMs, `rate limited on ${method} ${url.pathname}`, p.why, req.signal);
      return;
    }
    this.cfg.io.info(
      `rate limited on ${method} ${url.pathname}; waiting ${fmtMs(p.waitMs)}${p.why === 'x-rate-limit-reset' ? ` until ${new Date(p.reset! * 1000).toISOString()}` : ' (backoff: the window is not spent)'}`,
    );
    await this.sleep(p.waitMs, req.signal);
  }

  /** The error of a refused request, with the hints its history calls for. */
  private async failureOf(res: HttpResponse<unknown>, s: Attempts, req: HttpRequest): Promise<ApiError> {
    const { method, url, uncertain } = s;
    if (res.stream) res.stream.destroy();
    const err = errorFromResponse(res.status, safeJson(res.text), {
      resetAt: res.rateLimit?.reset,
      fallbackText: res.text,
    });
    if (s.oauth2Token) oauth2Hint(err, method, url.pathname, req.scopes);
    // v1.1 says code 89, v2 a bare 401 problem: either way the cached bearer was refused.
    if (
      req.auth === 'app' &&
      res.status === 401 &&
      (hasCode(err, V1Code.InvalidOrExpiredToken) || !hasV1Codes(res.text)) &&
      this.cfg.onBearerRejected
    ) {
      err.hint = (await this.cfg.onBearerRejected()) ?? err.hint;
    }
    if (res.status >= 500 && !s.idempotent) {
      err.hint = `${err.hint ? err.hint + '; ' : ''}not retried: the ${method} may have been applied`;
    }
    if (uncertain && res.status < 500 && method !== 'GET' && method !== 'HEAD') {
      err.hint =
        method === 'DELETE' && res.status === 404
          ? `the DELETE was retried after "${uncertain}": the first attempt most likely deleted it`
          : `the ${method} was retried after "${uncertain}": the first attempt may have been applied`;
    }
    return err;
  }

  private async oauth2Token(o: { rejected?: string }): Promise<string> {
    if (!this.cfg.oauth2) throw new AuthError('OAuth 2.0 user tokens are not available here');
    return this.cfg.oauth2(o);
  }

  /**
   * Waits `ms` showing what is left on one line of a terminal's stderr, redrawn every second
   * ("rate limited on GET /2/x: retrying in 4:32 (x-rate-limit-reset)"): a wait of up to
   * --max-wait (15 minutes) must not look like a hang. The line is removed when the wait ends.
   */
  private async countdown(ms: number, what: string, why: string, signal?: AbortSignal): Promise<void> {
    const io = this.cfg.io;
    const end = this.now() + ms;
    try {
      for (let left = ms; left > 0; left = end - this.now()) {
        io.status(`${what}: retrying in ${fmtClock(left)} (${why})`);
        // to the next whole second, so that each redraw shows one second less
        await this.sleep(left % 1000 || 1000, signal);
      }
    } finally {
      io.clearStatus();
    }
    io.info(`${what}: waited ${fmtMs(ms)} (${why}); retrying`);
  }

  private now(): number {
    return this.cfg.now ? this.cfg.now() : Date.now();
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.cfg.sleep) return this.cfg.sleep(ms, signal ?? this.cfg.signal);
    return abortableSleep(ms, signal ?? this.cfg.signal);
  }

  private async authHeader(
    method: string,
    url: URL,
    req: HttpRequest,
    form: Array<[string, string]>,
    oauth2Token?: string,
  ): Promise<string | undefined> {
    const auth = req.auth ?? 'user';
    if (auth === 'none') return undefined;
    if (auth === 'oauth2') return `Bearer ${oauth2Token}`;
    if (auth === 'app') return `Bearer ${await this.cfg.bearer()}`;
    const c = await this.cfg.credentials();
    if (!c.api_key || !c.api_secret) {
      throw new AuthError('no API key and secret are set', {
        hint: 'run `xctl auth set --api-key KEY --api-secret -` (secret on stdin), set XCTL_API_KEY and XCTL_API_SECRET, or start `xctl sandbox start`',
      });
    }
    if (auth === 'basic') return basicHeader(c.api_key, c.api_secret);
    const keys: { consumerKey: string; consumerSecret: string; token?: string; tokenSecret?: string } = {
      consumerKey: c.api_key,
      consumerSecret: c.api_secret,
    };
    if (req.token) {
      keys.token = req.token.token;
      keys.tokenSecret = req.token.tokenSecret;
    } else if (auth === 'user') {
      if (!c.access_token || !c.access_token_secret) {
        throw new AuthError('no user access token is set', {
          hint: 'run `xctl auth login`, or `xctl auth set --access-token T --access-token-secret -`, or set XCTL_ACCESS_TOKEN and XCTL_ACCESS_TOKEN_SECRET',
        });
      }
      keys.token = c.access_token;
      keys.tokenSecret = c.access_token_secret;
    }
    return oauth1Header(keys, { method, url: url.toString(), form, extra: req.oauthExtra });
  }

  private async once<T>(method: string, url: URL, req: HttpRequest, oauth2Token?: string): Promise<HttpResponse<T>> {
    const { headers, body, form } = encodeBody(req, this.cfg.userAgent);
    const signed = req.json !== undefined || req.body !== undefined ? [] : form;
    const authz = await this.authHeader(method, url, req, signed, oauth2Token);
    if (authz) headers.authorization = authz;
    if (this.cfg.verbose) traceRequest(this.cfg.io, method, url, headers, form, body, req);
    // Date.now, not performance.now: the `performance` global loads perf_hooks (eight modules).
    const started = Date.now();
    // A stream is endless by design (its watchdog handles stalls); any other answer has a deadline.
    const deadlineMs = req.stream ? undefined : (this.cfg.deadlineMs ?? DEFAULT_DEADLINE_MS);
    const deadline = deadlineMs ? AbortSignal.timeout(deadlineMs) : undefined;
    const signals = [req.signal, this.cfg.signal, deadline].filter((s): s is AbortSignal => !!s);
    const late = (e: unknown) =>
      // The command's --deadline (context.ts): its own error, not a network failure.
      this.cfg.signal?.reason instanceof RetryLaterError
        ? this.cfg.signal.reason
        : deadline?.aborted && !req.signal?.aborted && !this.cfg.signal?.aborted
          ? new NetworkError(`no complete answer from ${url.host} within ${fmtMs(deadlineMs!)}`, {
              code: 'DEADLINE',
              hint: 'the server is too slow; XCTL_TIMEOUT sets the deadline in seconds',
            })
          : toNetworkError(e, url);
    let r: TransportResponse;
    try {
      this.transport ??= import('./node-transport.js').then((m) => m.nodeTransport);
      r = await (await this.transport).send({
        method,
        url,
        headers,
        body,
        signal: signals.length ? AbortSignal.any(signals) : undefined,
        headersTimeoutMs: req.timeoutMs ?? 60_000,
        bodyTimeoutMs: req.stream ? 0 : (req.timeoutMs ?? 120_000),
      });
    } catch (e) {
      // A transport's refusal (`xctl mcp`'s plan guard: the request is not in the plan) is final.
      if (e instanceof UsageError) throw e;
      throw late(e);
    }
    const resHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers))
      if (v !== undefined) resHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    const rateLimit = parseRateLimit(resHeaders);
    // The version segment (/2, /12) is kept: only ids after it become :id.
    if (rateLimit) this.rateLimits.set(`${method} ${url.pathname.replace(/(?<!^)\/\d+(?=\/|$)/g, '/:id')}`, rateLimit);
    if (this.cfg.verbose) {
      this.cfg.io.err(`< ${r.status} (${Date.now() - started} ms)`);
      for (const [k, v] of Object.entries(resHeaders)) if (k !== 'set-cookie') this.cfg.io.err(`< ${k}: ${v}`);
    }
    const answer = { status: r.status, headers: resHeaders, url: url.toString(), rateLimit };
    if (req.stream && r.status < 400) return { ...answer, data: undefined as T, text: '', stream: r.body };
    const text = await readAnswer(r, resHeaders, req.maxBytes ?? MAX_RESPONSE_BYTES, `${method} ${url.pathname}`, late);
    // The answer to a failure, as the service sent it: the one line of the error names one
    // problem, the body may hold more (every item of `errors`, a `request` echo). Redacted and
    // escaped by io.err, and cut short: an HTML error page can be long.
    if (this.cfg.verbose && r.status >= 400)
      this.cfg.io.err(
        `< body: ${text.length > VERBOSE_BODY_CHARS ? `${text.slice(0, VERBOSE_BODY_CHARS)}... (${text.length} characters)` : text || '(empty)'}`,
      );
    return { ...answer, data: decodeAnswer(r.status, resHeaders, text, `${method} ${url.pathname}`) as T, text };
  }
}

/** The request's headers and body: JSON, a form, or bytes as given. */
function encodeBody(
  req: HttpRequest,
  userAgent: string | undefined,
): { headers: Record<string, string>; body: string | Buffer | undefined; form: Array<[string, string]> } {
  const headers: Record<string, string> = {
    'user-agent': userAgent ?? 'xctl',
    accept: 'application/json',
    ...(req.headers ?? {}),
  };
  const form = toPairs(req.form);
  let body: string | Buffer | undefined;
  if (req.json !== undefined) {
    body = stringifyJson(req.json);
    headers['content-type'] = 'application/json';
  } else if (form.length > 0) {
    body = encodeForm(form);
    headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
  } else if (req.body !== undefined) {
    body = req.body;
    headers['content-type'] ??= 'application/octet-stream';
  }
  return { headers, body, form };
}

/** --verbose: the request as sent, credentials and secret form values redacted. */
function traceRequest(
  io: IO,
  method: string,
  url: URL,
  headers: Record<string, string>,
  form: Array<[string, string]>,
  body: string | Buffer | undefined,
  req: HttpRequest,
): void {
  io.err(`> ${method} ${redactUrl(url)}`);
  for (const [k, v] of Object.entries(headers))
    io.err(`> ${k}: ${k === 'authorization' ? v.split(' ')[0] + ' [redacted]' : v}`);
  if (form.length && req.json === undefined)
    io.err(`> body (form): ${form.map(([k, v]) => `${k}=${SENSITIVE_PARAM.test(k) ? '[redacted]' : v}`).join('&')}`);
  else if (body !== undefined)
    io.err(`> body: ${Buffer.byteLength(body)} bytes${req.json !== undefined ? ' (json)' : ''}`);
}

/** The answer's text, read up to `maxBytes` (an answer over it is an error, never cut silently). */
async function readAnswer(
  r: TransportResponse,
  headers: Record<string, string>,
  maxBytes: number,
  what: string,
  late: (e: unknown) => Error,
): Promise<string> {
  const tooLarge = () =>
    new ApiError(`the answer to ${what} is larger than ${fmtBytes(maxBytes)}; stopped reading it`, {
      status: r.status,
      hint: 'no API answer is this large: check --base-url',
    });
  if (Number(headers['content-length']) > maxBytes) {
    r.body.destroy();
    throw tooLarge();
  }
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of r.body) {
      const b = bufferOf(c);
      size += b.length;
      if (size > maxBytes) {
        r.body.destroy();
        throw tooLarge();
      }
      chunks.push(b);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw late(e);
  }
}

/** The answer's data: JSON when it says or looks so; a success in HTML or broken JSON is an error. */
function decodeAnswer(status: number, headers: Record<string, string>, text: string, what: string): unknown {
  const ct = headers['content-type'] ?? '';
  if (text && (ct.includes('json') || /^\s*[[{]/.test(text))) {
    try {
      return parseJson(text);
    } catch {
      if (status < 400)
        throw new ApiError(`the server answered ${status} with malformed JSON`, {
          status,
          hint: 'is --base-url pointing at the API?',
        });
      return text;
    }
  }
  if (status < 400 && text && ct.includes('text/html')) {
    throw new ApiError(`expected JSON from ${what} but the server answered with an HTML page`, {
      status,
      hint: 'is --base-url pointing at the API?',
    });
  }
  return text;
}

/** What one request() has been through: its retries, waits and the OAuth 2.0 token it used. */
interface Attempts {
  method: string;
  url: URL;
  idempotent: boolean;
  maxRetries: number;
  attempt: number;
  rateWaits: number;
  backedOffMs: number;
  /** The failure after which a possibly applied attempt was retried ('' when none was). */
  uncertain: string;
  oauth2Token?: string;
  oauth2Retried: boolean;
}

/** Redirects are not followed (credentials stay with the configured host) and never taken for success. */
function redirectRefused(res: HttpResponse<unknown>, method: string, url: URL): ApiError {
  if (res.stream) res.stream.destroy();
  const location = res.headers.location;
  return new ApiError(
    `${method} ${url.pathname} answered HTTP ${res.status}, a redirect${location ? ` to ${location}` : ' without a Location'}; redirects are not followed`,
    { status: res.status, hint: 'check --base-url: the API never redirects' },
  );
}

/**
 * The platform's answers to a user token name nothing ("Forbidden", "Unauthorized"): the hint
 * says what the token lacks, from the contract's scope table, and how to get it.
 */
function oauth2Hint(err: ApiError, method: string, path: string, scopes: readonly string[] | undefined): void {
  if (err.status === 401) {
    err.hint = 'the OAuth 2.0 token was refused even after a refresh: log in again (`xctl auth login --oauth2`)';
    return;
  }
  if (err.status !== 403) return;
  if (err.code === 'unsupported-authentication') {
    err.hint = 'this endpoint does not take OAuth 2.0 user tokens: use --auth user or --auth app';
    return;
  }
  const need =
    scopes ??
    (() => {
      const r = oauth2RequirementForPath(method, path);
      return Array.isArray(r) ? r : undefined;
    })();
  if (need?.length) {
    err.hint = `the OAuth 2.0 token needs the scope${need.length > 1 ? 's' : ''} ${need.join(' ')}: log in again with them, e.g. \`xctl auth login --oauth2 --scopes "${[...new Set([...need, 'offline.access'])].join(' ')}"\``;
  } else {
    err.hint =
      'the OAuth 2.0 token lacks a scope this endpoint needs: log in again with `xctl auth login --oauth2 --scopes "..."`';
  }
}

/** A v1.1 error body (`{"errors":[{"code":N}]}`), as opposed to a v2 problem. */
function hasV1Codes(text: string): boolean {
  const b = safeJson(text);
  return isRecord(b) && Array.isArray(b.errors) && b.errors.some((e) => isRecord(e) && typeof e.code === 'number');
}

function safeJson(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

function toNetworkError(e: unknown, url: URL): NetworkError {
  const err: Record<string, unknown> = isRecord(e) ? e : {};
  const said = typeof err.message === 'string' ? err.message : '';
  if (err.name === 'AbortError' || errnoCode(e) === 'ABORT_ERR')
    return Object.assign(new NetworkError('request aborted'), { aborted: true });
  const code = errnoCode(e) ?? errnoCode(err.cause) ?? '';
  const host = url.host;
  let message = `cannot reach ${host}: ${said || code}`;
  let hint: string | undefined;
  // Failures that a retry within seconds cannot mend fail at once: nothing listens on a loopback
  // port (a stopped sandbox; each retry only cost the user seconds), or the name does not resolve.
  let final = false;
  if (code === 'ECONNREFUSED') {
    message = `connection refused by ${host}`;
    if (isLoopbackHost(url.hostname)) {
      final = true;
      hint = `nothing listens on ${host}: is the sandbox running? A sandbox started again has a new port and new keys: \`xctl sandbox start --configure\` stores them in profile "sandbox" (or point --base-url at it)`;
    } else hint = 'is the server running? check --base-url';
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    final = true;
    message = `cannot resolve host ${url.hostname}${code === 'EAI_AGAIN' ? ' (name lookup failed; offline?)' : ''}`;
    hint = isPlatformHost(url.hostname)
      ? 'check the network connection'
      : "check --base-url (XCTL_BASE_URL, or the profile's base_url: `xctl config get base_url`) and the network";
  } else if (/CERT|SSL|TLS|SELF_SIGNED/i.test(code) || /certificate|tls|ssl/i.test(said)) {
    message = `TLS failure talking to ${host}: ${said || code}`;
    hint = 'the server certificate is not trusted; check --base-url (plain http is allowed only on loopback)';
  } else if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    message = `timed out talking to ${host}`;
  } else if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
    message = `connection to ${host} closed unexpectedly`;
  }
  const ne = new NetworkError(message, { hint, code: code || undefined });
  return Object.assign(ne, { notSent: NOT_SENT.has(code), final });
}

function isPlatformHost(hostname: string): boolean {
  return isOneOf(PLATFORM_HOST_NAMES, hostname.toLowerCase());
}

/** The reset of a 429's window (unix seconds), from the parsed limits or the bare header. */
function resetOf(headers: Record<string, string>, rl: RateLimit | undefined): number | undefined {
  const reset = rl?.reset ?? Number(headers['x-rate-limit-reset'] ?? NaN);
  return Number.isFinite(reset) ? reset : undefined;
}

/** At most this many 429 waits per request, whichever kind. */
const MAX_RATE_WAITS = 20;

/**
 * One 429 policy for every command (the audience upload's sender follows the same): a window that
 * is spent (remaining 0, or not said, with a reset still ahead) is waited out until its reset, if
 * that is within --max-wait; a window that is not spent (remaining > 0: another limit, a burst
 * guard) or says nothing usable is backed off from (1 s doubling to 30 s, jittered), until the
 * backoffs together would pass --max-wait. undefined: give up now (a RateLimitError).
 */
export function rateLimitWait(o: {
  headers: Record<string, string>;
  rateLimit?: RateLimit;
  now: number;
  waits: number;
  backedOffMs: number;
  maxWaitMs: number;
}): { waitMs: number; why: 'x-rate-limit-reset' | 'backoff'; reset?: number } | undefined {
  if (o.waits >= MAX_RATE_WAITS) return undefined;
  const reset = resetOf(o.headers, o.rateLimit);
  const remainingHeader = o.rateLimit?.remaining ?? Number(o.headers['x-rate-limit-remaining'] ?? NaN);
  const remaining = Number.isFinite(remainingHeader) ? remainingHeader : undefined;
  const spent = remaining === undefined || remaining <= 0;
  if (spent && reset !== undefined && reset * 1000 > o.now) {
    const waitMs = Math.max(1000, reset * 1000 - o.now + 250);
    return waitMs <= o.maxWaitMs ? { waitMs, why: 'x-rate-limit-reset', reset } : undefined;
  }
  const waitMs = backoff(1000, o.waits);
  return o.backedOffMs + waitMs <= o.maxWaitMs ? { waitMs, why: 'backoff' } : undefined;
}

export function backoff(baseMs: number, attempt: number): number {
  const cap = Math.min(30_000, baseMs * 2 ** attempt);
  return Math.round(cap / 2 + Math.random() * (cap / 2)); // "equal jitter": never zero, never synchronized
}

function fmtBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MiB` : `${n} bytes`;
}

/** A countdown's time left, rounded up to the second: "4:32", "0:05", "1:02:03". */
export function fmtClock(ms: number): string {
  const t = Math.ceil(ms / 1000);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

export function fmtMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
