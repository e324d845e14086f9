// The emulator's HTTP server: body reading, faults, routing, credential checks, rate limits, replies.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SandboxState } from './state.js';
import { SandboxClock } from './clock.js';
import { Router, styleForPath, type BodyScanner, type Route } from './router.js';
import { Faults } from './faults.js';
import { RateLimiter } from './ratelimit.js';
import {
  EventBus,
  type DeliveryRecord,
  type LogEntry,
  type NewLogEntry,
  type SandboxApp,
  type SandboxOptions,
  type SandboxSeed,
} from './app.js';
import { loadSnapshot } from './snapshot.js';
import {
  OAUTH1_PERMISSIONS,
  OAUTH2_FORBIDDEN,
  SandboxError,
  adsError,
  problem,
  v1Error,
  type ErrorStyle,
  type Reply,
  type SReq,
} from './http.js';
import { oauth2Requirement } from '../contract/oauth2.js';
import { authInfo, verifyRequest, type Credential } from './verify.js';
import { seedState } from './seed.js';
import { PLATFORM_HOST_NAMES, isLoopbackAddress } from '../contract/hosts.js';
import { AdsCode, V1Code } from '../contract/service-errors.js';
import { MODULES } from './modules.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../contract/sandbox-admin.js';
import { stringifyJson } from '../core/json.js';
import { hostAllowed } from './host-check.js';
import { boundAddress, bufferOf } from '../contract/guards.js';

export interface Sandbox {
  baseUrl: string;
  port: number;
  seed: SandboxSeed;
  app: SandboxApp;
  close(): Promise<void>;
}

const MAX_BODY = 6_000_000;
/**
 * Request bytes held at once, all requests together: past it a request is answered 503 and its
 * connection closed, so clients that declare big bodies and stall cannot grow the sandbox's
 * memory without bound (150 of them at 6 MB each once took it from 100 MB to 930 MB).
 */
export const MAX_BODIES_HELD = 64 * 1024 * 1024;
/** Connections open at once; the next is refused by the kernel's backlog until one ends. */
const MAX_CONNECTIONS = 512;
/** Entries `GET /_sandbox/logs` can still return. */
const LOG_MAX = 5000;
// above the 5,000,000-byte upload limit, so that limit answers in its own words

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const closers: Array<() => void | Promise<void>> = [];
  const app = createApp(opts, closers);
  for (const m of MODULES) m.install(app);
  if (opts.state !== undefined) {
    loadSnapshot(app, opts.state);
    for (const m of MODULES) m.restored?.(app);
  }
  const { server, sockets, port } = await listen(app, opts);
  return {
    baseUrl: app.baseUrl,
    port,
    seed: app.seed,
    app,
    async close() {
      app.clock.close();
      for (const fn of closers) await fn();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

/** The emulator's parts (state, clock, router, faults, limits, logs), before any module is installed. */
function createApp(opts: SandboxOptions, closers: Array<() => void | Promise<void>>): SandboxApp {
  const faults = new Faults();
  const rates = new RateLimiter();
  if (opts.faults) faults.set(opts.faults);
  if (faults.spec.rate_limit !== undefined) rates.override = faults.spec.rate_limit;
  const deliveries: DeliveryRecord[] = [];
  const logs: LogEntry[] = [];
  let logSeq = 0;
  const logWaiters = new Set<() => void>();
  const addLog = (e: NewLogEntry) => {
    logs.push({ seq: ++logSeq, ...e } as LogEntry);
    if (logs.length > LOG_MAX) logs.splice(0, logs.length - LOG_MAX);
    for (const w of logWaiters) w();
  };
  const state = new SandboxState();
  const clock = new SandboxClock(opts.clock ?? 'real');
  return {
    state,
    clock,
    router: new Router<SandboxApp>(),
    faults,
    rates,
    events: new EventBus(),
    deliveries,
    options: opts,
    seed: seedState({ state, clock }),
    baseUrl: '',
    logs,
    addLog,
    waitForLog(seq, ms, signal) {
      if (logSeq > seq || ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          logWaiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        logWaiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
    recordDelivery(d) {
      addLog(d);
      deliveries.push(d);
      if (deliveries.length > 1000) deliveries.splice(0, deliveries.length - 1000);
    },
    onClose(fn) {
      closers.push(fn);
    },
    log(line) {
      opts.log?.(line);
    },
  };
}

/** The HTTP server on the asked port (0: any), its sockets tracked so close() ends them. */
async function listen(
  app: SandboxApp,
  opts: SandboxOptions,
): Promise<{ server: http.Server; sockets: Set<Socket>; port: number }> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    handle(app, req, res).catch((e) => {
      app.log(`internal error: ${(e instanceof Error ? e.stack : undefined) ?? e}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ code: V1Code.InternalError, message: 'Internal error' }] }));
      } else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 5000;
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = boundAddress(server);
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  app.baseUrl = `http://${host}:${addr.port}`;
  app.seed.base_url = app.baseUrl;
  return { server, sockets, port: addr.port };
}

/** The request body, made whole when first asked for. */
type BodyOf = () => Buffer;

/** Bytes of request bodies held now, by every request of this process (MAX_BODIES_HELD). */
let bodiesHeld = 0;

/**
 * The body's chunks, each also given to the route's scanner as it arrives; concatenated only
 * when a handler reads the body whole (`() => Buffer`). A body declared or grown past MAX_BODY is
 * not read (undefined); `keep: false` (a request that cannot authenticate) reads it without
 * keeping it. What is kept counts against MAX_BODIES_HELD until the answer is sent.
 */
async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  o: { scanner?: BodyScanner; keep: boolean },
): Promise<BodyOf | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  let held = 0;
  res.once('close', () => {
    bodiesHeld -= held;
    held = 0;
  });
  for await (const c of req) {
    const b = bufferOf(c);
    size += b.length;
    if (size > MAX_BODY) return undefined;
    if (!o.keep) continue;
    if (bodiesHeld + b.length > MAX_BODIES_HELD) throw new Busy();
    bodiesHeld += b.length;
    held += b.length;
    chunks.push(b);
    o.scanner?.push(b);
  }
  let whole: Buffer | undefined;
  return () => (whole ??= chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
}

/** Too many request bytes held already (MAX_BODIES_HELD). */
class Busy extends Error {}

/**
 * Whether a request could authenticate at all: a route that needs credentials, asked with none
 * (no Authorization header, no oauth_ parameter in the query or a form body), fails after the
 * body is read whatever it holds, so its body is not kept.
 */
function mayAuthenticate(route: Route<SandboxApp> | undefined, req: IncomingMessage, url: URL): boolean {
  if (!route || route.auth === 'none' || route.auth === 'admin') return true;
  if (req.headers.authorization) return true;
  if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return true;
  for (const k of url.searchParams.keys()) if (k.startsWith('oauth_')) return true;
  return false;
}

export function errorFor(
  style: ErrorStyle,
  status: number,
  what: 'not_found' | 'rate' | 'unauth' | 'internal' | 'too_large' | 'method',
  detail?: string,
): SandboxError {
  const messages = {
    not_found: 'Sorry, that page does not exist',
    rate: 'Rate limit exceeded',
    unauth: 'Could not authenticate you.',
    internal: 'Internal error',
    too_large: 'Request entity too large',
    method: 'Method not allowed',
  };
  const msg = detail ?? messages[what];
  if (style === 'ads') {
    const code = {
      not_found: AdsCode.RouteNotFound,
      rate: AdsCode.TooManyRequests,
      unauth: AdsCode.UnauthorizedAccess,
      internal: status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR',
      too_large: AdsCode.InvalidParameter,
      method: AdsCode.RouteNotFound,
    }[what];
    return adsError(status, code, msg);
  }
  if (style === 'v2') {
    const title = {
      not_found: 'Not Found Error',
      rate: 'Too Many Requests',
      unauth: 'Unauthorized',
      internal: status === 503 ? 'Service Unavailable' : 'Internal Error',
      too_large: 'Payload Too Large',
      method: 'Method Not Allowed',
    }[what];
    return problem(status, title, msg);
  }
  const code = {
    not_found: V1Code.PageNotFound,
    rate: V1Code.RateLimitExceeded,
    unauth: V1Code.AuthFailed,
    internal: V1Code.InternalError,
    too_large: V1Code.PayloadTooLarge,
    method: V1Code.PageNotFound,
  }[what];
  return v1Error(status, code, msg);
}

function send(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string>): void {
  if (reply.stream) {
    for (const [k, v] of Object.entries({ ...extraHeaders, ...(reply.headers ?? {}) })) res.setHeader(k, v);
    reply.stream(res, res.req);
    return;
  }
  let body: string | Buffer = '';
  let type = reply.contentType;
  if (reply.text !== undefined) {
    body = reply.text;
    type ??= 'text/plain; charset=utf-8';
  } else if (reply.body !== undefined) {
    body = stringifyJson(reply.body);
    type ??= 'application/json; charset=utf-8';
  }
  const headers: Record<string, string | number> = { ...extraHeaders, ...(reply.headers ?? {}) };
  if (type) headers['content-type'] = type;
  headers['content-length'] = Buffer.byteLength(body);
  res.writeHead(reply.status, headers);
  res.end(body);
}

const KIND_NAMES = {
  user: 'OAuth 1.0a User Context',
  app: 'OAuth 2.0 Application-Only',
  oauth2: 'OAuth 2.0 User Context',
} as const;

/** The "Supported authentication types are [...]" list of a route. */
function supportedKinds(route: Route<SandboxApp>): string {
  const kinds: string[] = [];
  if (route.auth === 'user' || route.auth === 'user-or-bearer') kinds.push(KIND_NAMES.user);
  if (route.auth === 'app' || route.auth === 'user-or-bearer') kinds.push(KIND_NAMES.app);
  if (oauth2Requirement(route.method, route.pattern)) kinds.push(KIND_NAMES.oauth2);
  return `[${kinds.join(', ')}]`;
}

function unsupported(route: Route<SandboxApp>, used: keyof typeof KIND_NAMES): SandboxError {
  // Two spaces after the first period, as observed.
  return problem(
    403,
    'Unsupported Authentication',
    `Authenticating with ${KIND_NAMES[used]} is forbidden for this endpoint.  Supported authentication types are ${supportedKinds(route)}.`,
  );
}

/**
 * OAuth 2.0 user tokens: only where the contract lists the endpoint, and only with its scopes
 * (a per-event requirement is the handler's to check, once it has read the body).
 */
function checkOAuth2(route: Route<SandboxApp>, scopes: string[], style: ErrorStyle): void {
  const need = oauth2Requirement(route.method, route.pattern);
  if (!need) {
    if (style === 'v2') throw unsupported(route, 'oauth2');
    if (style === 'ads') throw adsError(401, 'UNAUTHORIZED_ACCESS', 'This request requires OAuth 1.0a user context');
    throw v1Error(403, V1Code.AppOnlyForbidden, 'Your credentials do not allow access to this resource');
  }
  if (need !== 'per-event' && !need.every((s) => scopes.includes(s))) throw OAUTH2_FORBIDDEN();
}

/**
 * Admin endpoints that reveal or replace state (the full dump with every token, the request log)
 * take the sandbox app's API key and secret as HTTP Basic: being on loopback is not enough on a
 * shared machine.
 */
function checkAdminKey(app: SandboxApp, req: IncomingMessage): void {
  const denied = () =>
    problem(
      401,
      'Unauthorized',
      "this admin endpoint takes the sandbox app's API key and secret (HTTP Basic), as `xctl sandbox state` and `xctl sandbox logs` send them",
    );
  const h = req.headers.authorization;
  if (!h || !/^Basic\s/i.test(h)) throw denied();
  let cred: Credential;
  try {
    cred = verifyRequest(app.state, {
      method: 'GET',
      url: new URL('http://x/'),
      form: [],
      headers: { authorization: h },
    });
  } catch {
    throw denied();
  }
  if (cred.kind !== 'basic') throw denied();
}

function checkRouteAuth(route: Route<SandboxApp>, cred: Credential, style: ErrorStyle): void {
  const need = route.auth;
  if (need === 'none' || need === 'admin' || need === 'admin-key') return;
  const isUser = cred.kind === 'oauth1' && !!cred.userToken;
  const isOAuth1 = cred.kind === 'oauth1';
  if (cred.kind === 'none') {
    if (style === 'v2') throw problem(401, 'Unauthorized', 'Unauthorized');
    if (style === 'ads') throw adsError(401, 'UNAUTHORIZED_ACCESS', 'This request is not properly authenticated');
    throw v1Error(401, V1Code.BadAuthenticationData, 'Bad Authentication data.');
  }
  if (cred.kind === 'oauth2') return checkOAuth2(route, cred.token.scopes, style);
  const okay =
    (need === 'user' && isUser) ||
    (need === 'app' && cred.kind === 'bearer') ||
    (need === 'user-or-bearer' && (isUser || cred.kind === 'bearer')) ||
    (need === 'consumer' && isOAuth1) ||
    (need === 'basic' && cred.kind === 'basic');
  if (okay) return;
  if (need === 'app' || style === 'v2') throw unsupported(route, cred.kind === 'bearer' ? 'app' : 'user');
  if (style === 'ads') throw adsError(401, 'UNAUTHORIZED_ACCESS', 'This request requires OAuth 1.0a user context');
  if (cred.kind === 'bearer')
    throw v1Error(403, V1Code.AppOnlyForbidden, 'Your credentials do not allow access to this resource');
  throw v1Error(401, V1Code.AuthFailed, 'Could not authenticate you.');
}

/** A request naming one of the platform's hosts came through a router (a proxy, an SDK's agent). */
const PLATFORM_HOSTS = new Set<string>(PLATFORM_HOST_NAMES);

/**
 * A read-only OAuth 1.0a token on a write (docs/contract.md, notes-2 section 2: every POST, PUT and
 * DELETE is a write; the OAuth steps and a token's own invalidation are not).
 */
function checkWriteAccess(method: string, path: string, level: string, style: ErrorStyle): void {
  if (level !== 'read' || (method !== 'POST' && method !== 'PUT' && method !== 'DELETE')) return;
  if (path.startsWith('/oauth') || path.startsWith('/1.1/oauth/')) return;
  if (style === 'v2') throw OAUTH1_PERMISSIONS();
  if (style === 'ads')
    throw adsError(403, 'READONLY_CLIENT_APPLICATION', 'This request requires a read-write access token');
  throw new SandboxError({ status: 401, body: { request: path, error: `Read-only application cannot ${method}.` } });
}

/** One request being answered: what every step of the answer reads. */
interface Incoming {
  app: SandboxApp;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  path: string;
  method: string;
  style: ErrorStyle;
  admin: boolean;
  /** The rate-limit (and access-level) headers of the answer, filled as they are known. */
  rateHeaders: Record<string, string>;
  /** True once the client went away before its answer was written. */
  gone(): boolean;
}

async function handle(app: SandboxApp, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = Date.now();
  // A client routed here by a proxy or its own agent signed the https URL it addressed: the
  // platform's hosts are https only, and x-forwarded-proto says so for any other host.
  const scheme =
    req.headers['x-forwarded-proto'] === 'https' || PLATFORM_HOSTS.has(String(req.headers.host ?? ''))
      ? 'https'
      : 'http';
  const url = new URL(req.url ?? '/', `${scheme}://${req.headers.host ?? '127.0.0.1'}`);
  const path = url.pathname;
  const method = (req.method ?? 'GET').toUpperCase();
  const style = styleForPath(path);
  const admin = path.startsWith('/_sandbox/');
  const gone = watchClient(app, req, res, { started, method, path });
  const inc: Incoming = { app, req, res, url, path, method, style, admin, rateHeaders: {}, gone };
  let r: Reply | 'dropped';
  try {
    r = await reply(inc);
  } catch (e) {
    if (e instanceof SandboxError) r = e.reply;
    else throw e;
  }
  if (!admin && !inc.rateHeaders['x-rate-limit-limit']) {
    // Failed before the caller was known (bad signature, unknown route): count it by address.
    const rl = app.rates.take('default', req.socket.remoteAddress ?? '', Date.now());
    inc.rateHeaders['x-rate-limit-limit'] = String(rl.limit);
    inc.rateHeaders['x-rate-limit-remaining'] = String(rl.remaining);
    inc.rateHeaders['x-rate-limit-reset'] = String(rl.reset);
  }
  if (r === 'dropped') {
    req.socket.destroy();
    return;
  }
  send(res, r, inc.rateHeaders);
}

/**
 * Logs the request when its answer is written, and tells whether the client went away before
 * (killed, timed out: see drop_if_gone). node's HTTP server keeps a half-closed socket open to
 * answer on it, so its end is the sign.
 */
function watchClient(
  app: SandboxApp,
  req: IncomingMessage,
  res: ServerResponse,
  o: { started: number; method: string; path: string },
): () => boolean {
  let gone = false;
  const onGone = () => {
    gone = true;
  };
  const socket = req.socket; // res detaches it before 'close' when the connection is cut
  socket.once('end', onGone);
  res.once('close', () => {
    socket.off('end', onGone);
    if (!res.writableFinished) gone = true;
  });
  res.on('finish', () => {
    const ms = Date.now() - o.started;
    app.log(`${o.method} ${o.path} ${res.statusCode} ${ms}ms`);
    // `sandbox logs --follow` polls this endpoint: its own requests would drown what it shows.
    if (o.path !== SANDBOX_ADMIN_ENDPOINTS.logs.path)
      app.addLog({
        at: new Date(o.started).toISOString(),
        kind: 'request',
        method: o.method,
        path: o.path,
        status: res.statusCode,
        ms,
      });
  });
  return () => gone;
}

/** The answer: host, body size, faults, route, credentials, rate limit, then the route's handler. */
async function reply(inc: Incoming): Promise<Reply | 'dropped'> {
  const { app, req, method, path, style, admin } = inc;
  if (!hostAllowed(req.headers.host))
    throw errorFor(
      style,
      403,
      'unauth',
      'the sandbox answers requests addressed to its own address (Host: 127.0.0.1:PORT), not to other names',
    );
  // The route is known before the body, so that its scanner can read the body as it arrives. A
  // path the router cannot decode (a stray %) throws where it always did, after the body.
  let matched: ReturnType<Router<SandboxApp>['match']> | undefined;
  try {
    matched = app.router.match(method, path);
  } catch {
    matched = undefined;
  }
  // An admin route's key is checked before its body is read (nobody else's body is held).
  const early = matched?.route;
  if ((early?.auth === 'admin' || early?.auth === 'admin-key') && !isLoopbackAddress(req.socket.remoteAddress))
    throw errorFor(style, 403, 'unauth', 'admin endpoints answer loopback clients only');
  if (early?.auth === 'admin-key') checkAdminKey(app, req);
  const scanner = matched?.route?.scan?.(req);
  let body: BodyOf | undefined;
  try {
    body = await readBody(req, inc.res, { scanner, keep: mayAuthenticate(early, req, inc.url) });
  } catch (e) {
    if (!(e instanceof Busy)) throw e;
    req.socket.destroy();
    return 'dropped';
  }
  if (body === undefined)
    throw errorFor(style, 413, 'too_large', 'The request body is larger than the service accepts');
  const decision = admin ? { latencyMs: 0, after: false } : app.faults.decide(method, path);
  if (decision.latencyMs) await new Promise((r) => setTimeout(r, decision.latencyMs));
  if (decision.hold) {
    await new Promise<void>((r) => (req.socket.destroyed ? r() : req.socket.once('close', () => r())));
    return 'dropped';
  }
  if (!decision.after) {
    if (decision.drop) return 'dropped';
    if (decision.error) throw errorFor(style, decision.error, decision.error === 429 ? 'rate' : 'internal');
  }
  const { route, params } = routeOf(matched ?? app.router.match(method, path), path, style);
  const adminRoute = route.auth === 'admin' || route.auth === 'admin-key'; // checked above, before the body
  const ctype = String(req.headers['content-type'] ?? '');
  const form: Array<[string, string]> = ctype.startsWith('application/x-www-form-urlencoded')
    ? [...new URLSearchParams(body().toString('utf8')).entries()]
    : [];
  const cred: Credential =
    route.auth === 'none' || adminRoute
      ? { kind: 'none' }
      : verifyRequest(app.state, {
          method,
          url: inc.url,
          form,
          headers: req.headers,
          now: app.clock.now(),
          style: route.style ?? style,
        });
  checkRouteAuth(route, cred, route.style ?? style);
  if (cred.kind === 'oauth1' && cred.userToken) {
    inc.rateHeaders['x-access-level'] = cred.userToken.accessLevel;
    checkWriteAccess(method, path, cred.userToken.accessLevel, route.style ?? style);
  }
  if (!adminRoute) takeRate(inc, route, cred);
  const scanned = scanner?.end();
  const sreq = serverRequest(inc, route, { body, scanned, form, params, cred });
  if (decision.dropIfGone && inc.gone()) return 'dropped';
  const out = await route.handler(sreq, app);
  if (decision.after) {
    if (decision.drop) return 'dropped';
    if (decision.error) throw errorFor(style, decision.error, decision.error === 429 ? 'rate' : 'internal');
  }
  return out;
}

/** The route of a request, or the error the service answers an unknown one with. */
function routeOf(
  matched: ReturnType<Router<SandboxApp>['match']>,
  path: string,
  style: ErrorStyle,
): { route: Route<SandboxApp>; params: Record<string, string> } {
  const { route, params, methodMismatch } = matched;
  if (route) return { route, params };
  // The ads API answers a method it does not serve on a path as an unknown route (404 ROUTE_NOT_FOUND).
  const version = style === 'ads' ? /^\/(\d+)\//.exec(path)?.[1] : undefined;
  const detail =
    version && version !== '12' && version !== '5'
      ? `ads API version ${version} is not served: this is version 12 (/12/...)`
      : undefined;
  throw errorFor(style, methodMismatch && style !== 'ads' ? 405 : 404, methodMismatch ? 'method' : 'not_found', detail);
}

/** Spends one request of the caller's window in the route's category; the headers say what is left. */
function takeRate(inc: Incoming, route: Route<SandboxApp>, cred: Credential): void {
  const { app, req, method, style, rateHeaders } = inc;
  const caller =
    cred.kind === 'oauth1'
      ? `${cred.app.key}:${cred.userToken?.userId ?? ''}`
      : cred.kind === 'oauth2'
        ? `${cred.app.key}:${cred.token.userId}`
        : cred.kind !== 'none'
          ? cred.app.key
          : (req.socket.remoteAddress ?? '');
  const r = app.rates.take(route.rate ?? 'default', caller, Date.now());
  const prefix = style === 'ads' && method === 'GET' ? 'x-account-rate-limit-' : '';
  rateHeaders['x-rate-limit-limit'] = String(r.limit);
  rateHeaders['x-rate-limit-remaining'] = String(r.remaining);
  rateHeaders['x-rate-limit-reset'] = String(r.reset);
  if (prefix) {
    rateHeaders[prefix + 'limit'] = String(r.limit);
    rateHeaders[prefix + 'remaining'] = String(r.remaining);
    rateHeaders[prefix + 'reset'] = String(r.reset);
  }
  if (r.exceeded) throw errorFor(route.style ?? style, 429, 'rate');
}

/** The request as a route's handler reads it (its JSON body parsed once, in the route's error style). */
function serverRequest(
  inc: Incoming,
  route: Route<SandboxApp>,
  o: {
    body: () => Buffer;
    scanned: unknown;
    form: Array<[string, string]>;
    params: Record<string, string>;
    cred: Credential;
  },
): SReq {
  const { url, method, path, req } = inc;
  const { body, form } = o;
  let jsonCache: { v: unknown } | undefined;
  const sreq: SReq = {
    method,
    url,
    path,
    query: url.searchParams,
    headers: req.headers,
    get rawBody() {
      return body();
    },
    scanned: o.scanned,
    form,
    params: o.params,
    auth: authInfo(o.cred),
    raw: req,
    param(name) {
      for (let i = form.length - 1; i >= 0; i--) if (form[i]![0] === name) return form[i]![1];
      return url.searchParams.get(name) ?? undefined;
    },
    paramAll(name) {
      return [...form.filter(([k]) => k === name).map(([, v]) => v), ...url.searchParams.getAll(name)];
    },
    json() {
      if (jsonCache) return jsonCache.v;
      const text = body().toString('utf8');
      try {
        jsonCache = { v: JSON.parse(text) };
      } catch {
        const s = route.style ?? inc.style;
        if (s === 'ads') throw adsError(400, 'INVALID_PARAMETER', 'The request body is not valid JSON');
        if (s === 'v2') throw problem(400, 'Invalid Request', 'The request body is not valid JSON');
        throw v1Error(400, V1Code.InvalidParameter, 'The request body is not valid JSON');
      }
      return jsonCache.v;
    },
  };
  if (o.cred.kind === 'oauth1') sreq.oauth = o.cred.oauth;
  return sreq;
}
