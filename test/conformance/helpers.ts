// Conformance helpers: the official clients (XDK, twitter-api-v2) pointed at a real `xctl sandbox`
// through their own options and hooks, the way a user would for their own tests. Nothing here
// patches the SDKs: twitter-api-v2 gets an https agent, XDK's Client a baseUrl, and
// XDK's OAuth1 helper (which calls https://api.x.com with the global fetch) a fetch dispatcher,
// Node's documented hook for routing fetch, as a proxy would.
import https from 'node:https';
import net from 'node:net';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import type { IClientSettings } from 'twitter-api-v2';
import { expect } from 'vitest';
import { PLATFORM_HOST_NAMES } from '../../src/contract/hosts.js';

/** The platform hosts the SDKs hardcode; all are served by the sandbox's one base URL. */
export const PLATFORM_ORIGINS = PLATFORM_HOST_NAMES.map((h) => `https://${h}`);

/** Rewrites an SDK's platform URL to the sandbox (the authorize link a "browser" opens, say). */
export function toSandbox(url: string, base: string): string {
  for (const o of PLATFORM_ORIGINS) if (url.startsWith(o + '/')) return base + url.slice(o.length);
  return url;
}

/**
 * An https agent whose connections go, in plain TCP, to the sandbox: the client keeps addressing
 * (and signing for) https://api.x.com, as it would the platform, and the sandbox serves it.
 * twitter-api-v2 takes it as its `httpAgent` setting, the option it documents for proxies.
 */
export class SandboxAgent extends https.Agent {
  private readonly port: number;
  private readonly host: string;
  constructor(base: string) {
    super({ keepAlive: false });
    const u = new URL(base);
    this.host = u.hostname;
    this.port = Number(u.port);
  }
  override createConnection(): net.Socket {
    return net.connect(this.port, this.host);
  }
}

/** twitter-api-v2 settings pointing every call at the sandbox. */
export function twitterApiSettings(base: string): Partial<IClientSettings> {
  return { httpAgent: new SandboxAgent(base) };
}

/**
 * Routes fetch calls addressed to the platform's hosts to the sandbox, keeping the Host header and
 * saying `x-forwarded-proto: https`, as a TLS-terminating proxy does: the request is signed for
 * the https URL the client addressed, and the sandbox checks it against that URL. Returns the
 * function that restores the previous dispatcher.
 */
export function routePlatformHosts(base: string): () => void {
  const previous = getGlobalDispatcher();
  const inner = new Agent();
  const router = Object.create(inner) as Dispatcher;
  router.dispatch = (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
    const origin = String(opts.origin ?? '');
    if (!PLATFORM_ORIGINS.includes(origin.replace(/\/$/, ''))) return inner.dispatch(opts, handler);
    const host = new URL(origin).host;
    const headers = flatHeaders(opts.headers);
    headers.push('host', host, 'x-forwarded-proto', 'https');
    return inner.dispatch({ ...opts, origin: base, headers }, handler);
  };
  setGlobalDispatcher(router);
  return () => {
    setGlobalDispatcher(previous);
    void inner.close();
  };
}

function flatHeaders(h: Dispatcher.DispatchOptions['headers']): string[] {
  const out: string[] = [];
  if (!h) return out;
  if (Array.isArray(h)) {
    for (let i = 0; i < h.length; i += 2)
      if (String(h[i]).toLowerCase() !== 'host') out.push(String(h[i]), String(h[i + 1]));
    return out;
  }
  const entries =
    typeof (h as Iterable<unknown>)[Symbol.iterator] === 'function'
      ? [...(h as Iterable<[string, string]>)]
      : Object.entries(h);
  for (const [k, v] of entries) if (k.toLowerCase() !== 'host' && v !== undefined) out.push(k, String(v));
  return out;
}

export type FieldType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'digits' | 'iso-time';

/**
 * Checks an answer field by field against a shape written from the SDK's type: every listed
 * field present with its type ('?' suffix on the key: optional), and no field the type lacks.
 */
export function expectShape(value: unknown, shape: Record<string, FieldType>, where = 'answer'): void {
  expect(value, where).toBeTypeOf('object');
  const v = value as Record<string, unknown>;
  const known = new Set(Object.keys(shape).map((k) => k.replace(/\?$/, '')));
  for (const key of Object.keys(v)) expect(known.has(key), `${where}: field ${key} is not in the SDK type`).toBe(true);
  for (const [rawKey, type] of Object.entries(shape)) {
    const optional = rawKey.endsWith('?');
    const key = rawKey.replace(/\?$/, '');
    const field = v[key];
    if (field === undefined) {
      expect(optional, `${where}: ${key} is required by the SDK type`).toBe(true);
      continue;
    }
    const label = `${where}.${key}`;
    switch (type) {
      case 'array':
        expect(Array.isArray(field), label).toBe(true);
        break;
      case 'object':
        expect(field !== null && typeof field === 'object' && !Array.isArray(field), label).toBe(true);
        break;
      case 'digits':
        expect(field, label).toMatch(/^[0-9]{1,19}$/);
        break;
      case 'iso-time':
        expect(field, label).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
        break;
      default:
        expect(typeof field, label).toBe(type);
    }
  }
}
