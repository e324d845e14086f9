// An endpoint described once: what the CLI calls and the sandbox serves. The sandbox's router
// takes these (Router.serve) and the CLI builds its request paths from them (pathOf), so a path,
// a method or an auth requirement cannot drift apart between the two sides. Its parameters,
// their rules and its answer (params.ts) are checked by one validate() on both sides.
import type { Described } from './params.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * What the service accepts. user: OAuth 1.0a with a user token. app: OAuth 2.0 bearer.
 * user-or-bearer: either. consumer: OAuth 1.0a, token optional (request-token step).
 * basic: Basic key:secret. none: no credentials. admin: /_sandbox endpoints, loopback only.
 * admin-key: /_sandbox endpoints that reveal state: loopback and Basic key:secret of the sandbox app.
 */
export type EndpointAuth = 'user' | 'app' | 'user-or-bearer' | 'consumer' | 'basic' | 'none' | 'admin' | 'admin-key';

/** The error body shape of an endpoint (docs/contract.md, notes "Errors"). */
export type ErrorStyle = 'v1' | 'v2' | 'ads' | 'oauth';

export interface Endpoint extends Described {
  method: HttpMethod;
  /** Path with :params, e.g. '/2/webhooks/:id'. */
  path: string;
  auth: EndpointAuth;
  /** Rate-limit category (the sandbox's ratelimit.ts), default 'default'. */
  rate?: string;
  style?: ErrorStyle;
  /** One line: what it does, and where the spec describes it. */
  doc: string;
  /**
   * The operation of the platform's OpenAPI specification (version OPENAPI_VERSION, params.ts)
   * this description follows: its parameters, body and security are that operation's.
   */
  op?: string;
  /**
   * Where the recorded platform departs from that operation, the recording wins: each departure
   * in words, beside the description it changes.
   */
  departures?: readonly string[];
}

export function endpoint(method: HttpMethod, path: string, o: Omit<Endpoint, 'method' | 'path'>): Endpoint {
  return { method, path, ...o };
}

/** The endpoint's path with its :params filled in (each value URI-encoded). */
export function pathOf(e: Pick<Endpoint, 'path'>, params: Record<string, string> = {}): string {
  return e.path.replace(/:([a-z_]+)/g, (_, k: string) => {
    const v = params[k];
    if (v === undefined) throw new Error(`pathOf ${e.path}: no value for :${k}`);
    return encodeURIComponent(v);
  });
}
