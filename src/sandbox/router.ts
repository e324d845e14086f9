// Routes as data: method, path pattern, auth requirement, rate-limit category and error style.
import type { IncomingMessage } from 'node:http';
import type { Reply, SReq } from './http.js';
import type { Endpoint, EndpointAuth, ErrorStyle } from '../contract/endpoint.js';

/** Who may call a route (see EndpointAuth in src/contract/endpoint.ts). */
export type RouteAuth = EndpointAuth;

export interface RouteOptions {
  auth: RouteAuth;
  /** Rate-limit category (see ratelimit.ts); default 'default'. */
  rate?: string;
  style?: ErrorStyle;
  /**
   * Reads the body as it arrives (uploads of megabytes), instead of after it is whole; what
   * `end()` returns is the handler's `req.scanned`. Undefined for a request it does not read.
   */
  scan?: (req: IncomingMessage) => BodyScanner | undefined;
}

/** Takes a request body chunk by chunk; `end()` says what it held. */
export interface BodyScanner {
  push(chunk: Buffer): void;
  end(): unknown;
}

/** A route's handler; `A` is what the server hands it (the SandboxApp of app.ts). */
export type Handler<A> = (req: SReq, app: A) => Reply | Promise<Reply>;

export interface Route<A> extends RouteOptions {
  method: string;
  pattern: string;
  regex: RegExp;
  keys: string[];
  handler: Handler<A>;
}

export class Router<A> {
  readonly routes: Route<A>[] = [];

  add(method: string, pattern: string, opts: RouteOptions, handler: Handler<A>): this {
    const keys: string[] = [];
    const src = pattern
      .split('/')
      .map((seg) => {
        if (seg.startsWith(':')) {
          keys.push(seg.slice(1));
          return '([^/]+)';
        }
        return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    this.routes.push({
      method: method.toUpperCase(),
      pattern,
      regex: new RegExp(`^${src}/?$`),
      keys,
      handler,
      ...opts,
    });
    return this;
  }

  /** Serves an endpoint of the contract (src/contract/): its method, path, auth, rate and style. */
  serve(e: Endpoint, handler: Handler<A>, extra: Pick<RouteOptions, 'scan'> = {}): this {
    return this.add(e.method, e.path, { auth: e.auth, rate: e.rate, style: e.style, ...extra }, handler);
  }

  /** The route for a method and path; `methodMismatch` when only the path matched. */
  match(method: string, path: string): { route?: Route<A>; params: Record<string, string>; methodMismatch: boolean } {
    let methodMismatch = false;
    for (const r of this.routes) {
      const m = r.regex.exec(path);
      if (!m) continue;
      if (r.method !== method && !(method === 'HEAD' && r.method === 'GET')) {
        methodMismatch = true;
        continue;
      }
      const params: Record<string, string> = {};
      r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1]!)));
      return { route: r, params, methodMismatch: false };
    }
    return { params: {}, methodMismatch };
  }
}

export function styleForPath(path: string): ErrorStyle {
  // Any numbered ads version (/11/..., /9/...) answers as the ads API does; /2/ is v2, /1.1/ v1.1.
  if (/^\/(?!2\/)\d+\//.test(path)) return 'ads';
  if (path.startsWith('/2/')) return 'v2';
  if (path.startsWith('/oauth')) return 'oauth';
  return 'v1';
}
