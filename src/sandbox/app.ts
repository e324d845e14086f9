// What a sandbox module receives: state, clock, router, faults, rate limits, the event bus.
import type { SandboxState } from './state.js';
import type { SandboxClock } from './clock.js';
import type { Router } from './router.js';
import type { Faults } from './faults.js';
import type { RateLimiter } from './ratelimit.js';

export interface SandboxSeed {
  base_url: string;
  api_key: string;
  api_secret: string;
  access_token: string;
  access_token_secret: string;
  user_id: string;
  screen_name: string;
  account_id: string;
  /** OAuth 2.0 credentials of the sandbox app: a confidential client (Basic auth at the token endpoint). */
  client_id: string;
  client_secret: string;
  /** A public client of the same app (PKCE only, client_id in the body), for native-app style tests. */
  public_client_id: string;
}

/** An event entering the sandbox (POST /_sandbox/events, `xctl sandbox trigger`, or a module). */
export interface SandboxEvent {
  event_uuid: string;
  event_type: string;
  user_id?: string;
  payload: Record<string, unknown>;
  created_at: string;
}

/** One webhook delivery or CRC check, as GET /_sandbox/deliveries reports it. */
export interface DeliveryRecord {
  kind: 'delivery' | 'crc';
  webhook_id: string;
  url: string;
  at: string;
  status?: number;
  outcome: string;
  event_type?: string;
  event_uuid?: string;
  ms?: number;
}

/**
 * One line of `xctl sandbox logs`: a request the sandbox answered, or a webhook delivery or CRC
 * check it made. Paths only (no query string, no headers): nothing here is a credential.
 */
export type LogEntry =
  | { seq: number; at: string; kind: 'request'; method: string; path: string; status: number; ms: number }
  | ({ seq: number } & DeliveryRecord);

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewLogEntry = DistributiveOmit<LogEntry, 'seq'>;

/** What seeding a fresh sandbox uses: it runs before the app is complete (the app holds its seed). */
export type SeedTarget = Pick<SandboxApp, 'state' | 'clock'>;

/** `unreached`: what a handler matched but could not deliver to, said to `sandbox trigger`. */
export type EventHandler = (ev: SandboxEvent, unreached: string[]) => Promise<number> | number;

export class EventBus {
  private handlers: EventHandler[] = [];
  subscribe(h: EventHandler): void {
    this.handlers.push(h);
  }
  /** Hands the event to every module; resolves with the number of deliveries they made. */
  async publish(ev: SandboxEvent, unreached: string[] = []): Promise<number> {
    let n = 0;
    for (const h of this.handlers) n += await h(ev, unreached);
    return n;
  }
}

export interface SandboxOptions {
  port?: number;
  host?: string;
  clock?: 'real' | 'manual';
  faults?: import('./faults.js').FaultSpec;
  /** Lines of the request log (stderr of `sandbox start`); silent when absent. */
  log?: (line: string) => void;
  /** /oauth2/token requests allowed per app per minute before 403 code 99. */
  tokenRequestsPerMinute?: number;
  /** A saved state (snapshot.ts) to start from instead of the fresh seed. */
  state?: unknown;
}

export interface SandboxApp {
  readonly state: SandboxState;
  readonly clock: SandboxClock;
  readonly router: Router<SandboxApp>;
  readonly faults: Faults;
  readonly rates: RateLimiter;
  readonly events: EventBus;
  readonly deliveries: DeliveryRecord[];
  readonly options: SandboxOptions;
  seed: SandboxSeed;
  /** The base URL once listening. */
  baseUrl: string;
  recordDelivery(d: DeliveryRecord): void;
  /** Recent requests and deliveries, oldest first (GET /_sandbox/logs). */
  readonly logs: LogEntry[];
  addLog(e: NewLogEntry): void;
  /** Resolves when an entry newer than `seq` exists, or after `ms`. */
  waitForLog(seq: number, ms: number, signal?: AbortSignal): Promise<void>;
  onClose(fn: () => void | Promise<void>): void;
  log(line: string): void;
}
