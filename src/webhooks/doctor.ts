// `webhooks doctor`: what the platform does with a webhook URL, step by step, stopping at the
// first failure and naming it with one stable `cause` (docs/contract.md, credentials 2.2, 3.2, 6;
// docs/contract.md, notes "Webhook challenge (CRC)" and "Delivery signature"). No command knowledge:
// the verb hands it the URL, the consumer secret and a clock.
import crypto from 'node:crypto';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../contract/hosts.js';
import { CRC_TIMEOUT_MS, DELIVERY_TIMEOUT_MS } from '../contract/webhooks.js';
import { deliveryHeaders, hmacToken } from './crypto.js';
import { connectFirst, fmtAddr, lookupAll, request, tlsHandshake, type Address, type HttpAnswer } from './probe.js';
import { isNonPublicHost, webhookUrlProblem } from '../contract/webhook-url.js';
import { errnoCode, errorMessage } from '../core/errors.js';

/** One identifier per failure kind: scripts match on these, so they never change meaning. */
export const DOCTOR_CAUSES = [
  'url_rules',
  'dns',
  'unreachable',
  'tls',
  'redirect',
  'http_status',
  'slow',
  'not_json',
  'bad_response_token',
  'wrong_secret',
  'content_type',
  'delivery_status',
  'delivery_slow',
  'delivery_failed',
] as const;
export type DoctorCause = (typeof DOCTOR_CAUSES)[number];

export interface DoctorStep {
  name: 'url' | 'dns' | 'tcp' | 'tls' | 'crc' | 'delivery';
  ok: boolean;
  ms: number;
  detail: string;
}

export interface DoctorReport {
  ok: boolean;
  cause: DoctorCause | null;
  url: string;
  steps: DoctorStep[];
  /** Steps not run because an earlier one failed. */
  skipped: DoctorStep['name'][];
}

export interface DoctorOptions {
  url: string;
  secret: string;
  /** Milliseconds now (the context's clock): step times. */
  now: () => number;
  /** The delivery step's body; undefined skips the step. */
  delivery?: string;
}

/** Bounds of the steps the platform does not time itself (its own resolvers and connects). */
const CONNECT_MS = 5_000;
const STEPS: DoctorStep['name'][] = ['url', 'dns', 'tcp', 'tls', 'crc', 'delivery'];

class StepFailed extends Error {
  constructor(
    readonly kind: DoctorCause,
    readonly detail: string,
  ) {
    super(detail);
  }
}

interface Target {
  url: URL;
  port: number;
  loopback: boolean;
  addrs?: Address[];
  addr?: Address;
}

/** Runs the steps in order; the first that fails ends the run and names the cause. */
export async function runDoctor(o: DoctorOptions): Promise<DoctorReport> {
  const steps: DoctorStep[] = [];
  const report = (cause: DoctorCause | null): DoctorReport => {
    const done = new Set(steps.map((s) => s.name));
    const planned = (n: DoctorStep['name']) =>
      (n !== 'delivery' || o.delivery !== undefined) && (n !== 'tls' || !/^http:/i.test(o.url));
    const skipped = STEPS.filter((n) => !done.has(n) && planned(n));
    return { ok: cause === null, cause, url: o.url, steps, skipped };
  };
  const t: Target = { url: new URL('http://x'), port: 0, loopback: false };
  const run = async (
    name: DoctorStep['name'],
    fn: () => Promise<string> | string,
  ): Promise<DoctorCause | undefined> => {
    const start = o.now();
    try {
      const detail = await fn();
      steps.push({ name, ok: true, ms: o.now() - start, detail });
      return undefined;
    } catch (e) {
      if (!(e instanceof StepFailed)) throw e;
      steps.push({ name, ok: false, ms: o.now() - start, detail: e.detail });
      return e.kind;
    }
  };
  const plan: Array<[DoctorStep['name'], () => Promise<string> | string]> = [
    ['url', () => urlStep(o.url, t)],
    ['dns', () => dnsStep(t)],
    ['tcp', () => tcpStep(t)],
    ['tls', () => tlsStep(t)],
    ['crc', () => crcStep(t, o.secret)],
  ];
  if (o.delivery !== undefined) plan.push(['delivery', () => deliveryStep(t, o.secret, o.delivery!)]);
  for (const [name, fn] of plan) {
    if (name === 'tls' && t.url.protocol !== 'https:') continue;
    const cause = await run(name, fn);
    if (cause) return report(cause);
  }
  return report(null);
}

function urlStep(raw: string, t: Target): string {
  // The platform's rules, with the sandbox's loopback stand-in (docs/contract.md, design "Sandbox").
  const why = webhookUrlProblem(raw, true);
  if (why) throw new StepFailed('url_rules', `the URL ${why}`);
  t.url = new URL(raw);
  t.port = Number(t.url.port || (t.url.protocol === 'https:' ? 443 : 80));
  t.loopback = isLoopbackHost(t.url.hostname);
  if (!t.loopback) return 'https, no port, public host name';
  const scheme = t.url.protocol.slice(0, -1);
  return `${scheme} on loopback: the local stand-in (the platform needs https, a public host, no port)`;
}

async function dnsStep(t: Target): Promise<string> {
  const host = t.url.hostname.replace(/^\[|\]$/g, '');
  let addrs: Address[];
  try {
    addrs = await lookupAll(host, CONNECT_MS);
  } catch (e) {
    const code = errnoCode(e);
    const why =
      code === 'ENOTFOUND'
        ? 'no such host'
        : code === 'ETIMEOUT'
          ? `no answer within ${CONNECT_MS} ms`
          : (code ?? errorMessage(e));
    throw new StepFailed('dns', `${host}: ${why}`);
  }
  const list = addrs.map((a) => a.address).join(', ');
  if (!t.loopback) {
    // The platform connects from the internet: only public addresses reach the receiver.
    const reachable = addrs.filter((a) => !isNonPublicHost(a.address));
    if (!reachable.length)
      throw new StepFailed('dns', `${host} resolves only to addresses the platform cannot reach (${list})`);
    addrs = reachable;
  }
  t.addrs = addrs;
  return isIP(host) ? `${host} is an address (no lookup)` : `${host} -> ${list}`;
}

async function tcpStep(t: Target): Promise<string> {
  try {
    const { addr } = await connectFirst(t.addrs ?? [], t.port, CONNECT_MS);
    t.addr = addr;
    return `connected to ${fmtAddr(addr)}:${t.port}`;
  } catch (e) {
    throw new StepFailed('unreachable', `no connection to port ${t.port}: ${errorMessage(e)}`);
  }
}

const TLS_WHY: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the chain ends in a self-signed certificate no client trusts',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the chain is incomplete (serve the intermediate certificates too)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the issuer is not a trusted authority, or the chain is incomplete',
};

async function tlsStep(t: Target): Promise<string> {
  const host = t.url.hostname.replace(/^\[|\]$/g, '');
  let r;
  try {
    r = await tlsHandshake(t.addr!, t.port, host, CONNECT_MS);
  } catch (e) {
    throw new StepFailed('tls', `no TLS handshake with ${host}:${t.port}: ${errnoCode(e) ?? errorMessage(e)}`);
  }
  const names = `${r.subject ? `CN=${r.subject}` : '(no CN)'}${r.altNames ? ` (${r.altNames})` : ''}`;
  const cert = `certificate ${names}, issued by ${r.issuer ?? '?'}, valid ${r.validFrom ?? '?'} to ${r.validTo ?? '?'}`;
  if (!r.authorized) {
    const why = TLS_WHY[r.error ?? ''] ?? `certificate refused (${r.error})`;
    throw new StepFailed('tls', `${why} [${r.error}]; SNI ${host}: ${cert}`);
  }
  return `${r.protocol ?? 'TLS'}, SNI ${host}: ${cert}`;
}

function target(t: Target, extraQuery?: [string, string]): URL {
  const u = new URL(t.url.toString());
  if (extraQuery) u.searchParams.append(...extraQuery);
  return u;
}

async function crcStep(t: Target, secret: string): Promise<string> {
  // A fresh token shaped like the service's (letters, digits, -_), as a receiver may check.
  const token = crypto.randomBytes(24).toString('base64url');
  let a: HttpAnswer;
  try {
    a = await request(target(t, ['crc_token', token]), t.addr!, {
      method: 'GET',
      ms: CRC_TIMEOUT_MS,
    });
  } catch (e) {
    throw transportFailure(
      e,
      CRC_TIMEOUT_MS,
      'slow',
      'the CRC GET',
      'the platform waits 3 seconds for the challenge answer',
    );
  }
  if (a.status >= 300 && a.status < 400) {
    const where = typeof a.headers.location === 'string' ? ` to ${a.headers.location}` : '';
    throw new StepFailed(
      'redirect',
      `HTTP ${a.status} redirect${where}: the platform does not follow redirects (register the final URL)`,
    );
  }
  if (a.status !== 200)
    throw new StepFailed('http_status', `HTTP ${a.status} to the CRC GET (the platform needs 200): ${snippet(a.body)}`);
  const type = String(a.headers['content-type'] ?? '');
  let answer: unknown;
  try {
    answer = JSON.parse(a.body);
  } catch {
    throw new StepFailed('not_json', `the answer is not JSON (content-type ${type || 'none'}): ${snippet(a.body)}`);
  }
  const got =
    answer && typeof answer === 'object' ? (answer as { response_token?: unknown }).response_token : undefined;
  if (typeof got !== 'string')
    throw new StepFailed('bad_response_token', `no "response_token" string in the JSON answer: ${snippet(a.body)}`);
  if (!/^sha256=[A-Za-z0-9+/]{43}=$/.test(got)) {
    throw new StepFailed(
      'bad_response_token',
      `response_token is not "sha256=" + base64 of an HMAC-SHA256 (got ${snippet(got)})`,
    );
  }
  if (got !== hmacToken(secret, token)) {
    throw new StepFailed(
      'wrong_secret',
      "response_token is well formed but signed with another secret: the receiver's consumer " +
        "secret is not this profile's (rotated, or another app's)",
    );
  }
  if (!/^application\/json\b/i.test(type)) {
    throw new StepFailed(
      'content_type',
      `the token is right but served as ${type || 'no content-type'}; answer with Content-Type: application/json`,
    );
  }
  return `HTTP 200 application/json, response_token correct (limit ${CRC_TIMEOUT_MS} ms)`;
}

async function deliveryStep(t: Target, secret: string, body: string): Promise<string> {
  let a: HttpAnswer;
  try {
    a = await request(target(t), t.addr!, {
      method: 'POST',
      headers: deliveryHeaders(secret, body),
      body,
      ms: DELIVERY_TIMEOUT_MS,
    });
  } catch (e) {
    throw transportFailure(
      e,
      DELIVERY_TIMEOUT_MS,
      'delivery_slow',
      'the signed test delivery',
      'the platform waits 10 seconds for a delivery to be acknowledged',
      'delivery_failed',
    );
  }
  // The acknowledgement is a 200 (docs/contract.md, credentials 6).
  if (a.status !== 200)
    throw new StepFailed(
      'delivery_status',
      `HTTP ${a.status} to the signed test delivery (the platform needs 200): ${snippet(a.body)}`,
    );
  return `HTTP 200 to a signed test delivery (limit ${DELIVERY_TIMEOUT_MS} ms)`;
}

function transportFailure(
  e: unknown,
  ms: number,
  slow: DoctorCause,
  what: string,
  limit: string,
  other: DoctorCause = 'unreachable',
): StepFailed {
  const code = errnoCode(e);
  if (code === 'ETIMEDOUT') return new StepFailed(slow, `no answer to ${what} within ${ms} ms: ${limit}`);
  const tls = /CERT|SSL|TLS/i.test(code ?? '');
  return new StepFailed(tls ? 'tls' : other, `${what} failed: ${code ?? errorMessage(e)}`);
}

/** The start of an answer, on one line, for a detail. */
function snippet(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  if (!one) return '(empty body)';
  return JSON.stringify(one.length > 80 ? one.slice(0, 79) + '…' : one);
}
