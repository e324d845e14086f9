// In-memory state: the app, users, credentials, and the typed collections and slots that modules own.
import crypto from 'node:crypto';
import type { AdsCollection } from '../ads/resource-types.js';
import { NonceStore } from './nonce-store.js';

export interface SandboxAppRecord {
  key: string;
  secret: string;
  name: string;
  ownerUserId: string;
  /** Callback URLs accepted besides loopback and oob. */
  callbacks: string[];
  bearer?: string;
  /** Times of recent /oauth2/token requests (403 code 99 when too frequent). */
  tokenRequests: number[];
  /** Users who already approved the app (authenticate skips the approval for them). */
  approvedBy: Set<string>;
}

export interface SandboxUser {
  id: string;
  screen_name: string;
  name: string;
  bio: string;
}

export interface UserToken {
  token: string;
  secret: string;
  appKey: string;
  userId: string;
  accessLevel: 'read' | 'read-write' | 'read-write-directmessages';
  invalidated: boolean;
  createdAt: number;
}

export interface RequestToken {
  token: string;
  secret: string;
  appKey: string;
  callback: string;
  accessType?: 'read' | 'write';
  verifier?: string;
  userId?: string;
  denied?: boolean;
  used: boolean;
  createdAt: number;
}

export type Entity = Record<string, unknown> & { id: string };

/** An OAuth 2.0 client of an app: confidential (secret, Basic auth) or public (client_id in the body). */
export interface OAuth2Client {
  clientId: string;
  secret?: string;
  appKey: string;
  type: 'confidential' | 'public';
}

/** An authorization code: 30 s, single use, bound to its client, redirect_uri and PKCE challenge. */
export interface OAuth2Code {
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string;
  method: 'S256' | 'plain';
  userId: string;
  createdAt: number;
  used: boolean;
}

export interface OAuth2AccessToken {
  token: string;
  clientId: string;
  appKey: string;
  userId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface OAuth2RefreshToken {
  token: string;
  clientId: string;
  userId: string;
  scopes: string[];
  expiresAt: number;
  /** Spent by a refresh (rotation) or revoked: either way never usable again. */
  dead: boolean;
  /** The access token issued with it, which its refresh retires. */
  access: string;
}

/**
 * A collection's name with the type of what it holds, declared once by the module that owns it:
 * `state.collection(WEBHOOKS)` is a Map of WebhookRec, and a misspelt key does not compile.
 * (The ads store's collections are the resources' names, typed by AdsCollection.)
 */
export interface CollectionKey<T extends Entity> {
  readonly name: string;
  /** Live objects (open connections): left out of a saved state. */
  readonly transient?: boolean;
  /** Type only: never set. */
  readonly entity?: T;
}

export function collectionKey<T extends Entity>(name: string, o: { transient?: boolean } = {}): CollectionKey<T> {
  return { name, ...o };
}

/** How a slot is written to a saved state and read back (default: as JSON, unchanged). */
export interface SlotCodec<T> {
  save(v: T): unknown;
  load(j: unknown): T;
}

/** Module state that is not a collection (event logs, backlogs, digest sets), typed like a collection. */
export interface SlotKey<T> {
  readonly name: string;
  readonly init: () => T;
  readonly codec?: SlotCodec<T>;
}

export function slotKey<T>(name: string, init: () => T, codec?: SlotCodec<T>): SlotKey<T> {
  return { name, init, ...(codec ? { codec } : {}) };
}

export function randomToken(
  bytes = 24,
  alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
): string {
  const buf = crypto.randomBytes(bytes);
  let s = '';
  for (const b of buf) s += alphabet[b % alphabet.length];
  return s;
}

/** A stable numeric id derived from a key (the platform's application and client-app ids are digits). */
export function digitsFor(key: string): string {
  return BigInt('0x' + crypto.createHash('sha256').update(key).digest('hex').slice(0, 15)).toString();
}

export function randomDigits(n: number): string {
  let s = String(1 + (crypto.randomBytes(1)[0]! % 9));
  while (s.length < n) s += String(crypto.randomBytes(1)[0]! % 10);
  return s;
}

/** Ads-style ids: short base36 strings. */
export function adsId(): string {
  return crypto.randomBytes(6).readUIntBE(0, 6).toString(36).slice(0, 8).padStart(5, '0');
}

export class SandboxState {
  readonly apps = new Map<string, SandboxAppRecord>();
  readonly users = new Map<string, SandboxUser>();
  readonly userTokens = new Map<string, UserToken>();
  readonly requestTokens = new Map<string, RequestToken>();
  readonly oauth2Clients = new Map<string, OAuth2Client>();
  readonly oauth2Codes = new Map<string, OAuth2Code>();
  readonly oauth2Access = new Map<string, OAuth2AccessToken>();
  readonly oauth2Refresh = new Map<string, OAuth2RefreshToken>();
  /** OAuth 1.0a nonces seen (replay detection, bounded: nonce-store.ts). */
  readonly nonces = new NonceStore();
  private readonly collections = new Map<string, Map<string, Entity>>();
  private readonly transient = new Set<string>();
  private readonly slots = new Map<string, unknown>();
  private readonly slotKeys = new Map<string, SlotKey<unknown>>();
  /** Slots of a loaded state not yet asked for by their module: decoded on first use. */
  private readonly pendingSlots = new Map<string, unknown>();

  /** A collection by its name alone: a saved state holds every collection by name (snapshot.ts). */
  collectionNamed(name: string): Map<string, Entity> {
    return this.collection({ name });
  }

  /** A collection of entities: a module's (by its key), or the ads store's (by resource name). */
  collection<T extends Entity>(key: CollectionKey<T>): Map<string, T>;
  collection(name: AdsCollection): Map<string, Entity>;
  collection(key: CollectionKey<Entity> | AdsCollection): Map<string, Entity> {
    const name = typeof key === 'string' ? key : key.name;
    if (typeof key !== 'string' && key.transient) this.transient.add(name);
    let c = this.collections.get(name);
    if (!c) {
      c = new Map();
      this.collections.set(name, c);
    }
    return c;
  }

  /** A module's slot, created on first use. */
  slot<T>(key: SlotKey<T>): T {
    if (!this.slots.has(key.name)) {
      this.slotKeys.set(key.name, key as SlotKey<unknown>);
      const pending = this.pendingSlots.get(key.name);
      this.pendingSlots.delete(key.name);
      this.slots.set(key.name, pending === undefined ? key.init() : key.codec ? key.codec.load(pending) : pending);
    }
    return this.slots.get(key.name) as T;
  }

  collectionNames(): string[] {
    return [...this.collections.keys()];
  }

  /** Collections that a saved state keeps (not the live connections). */
  savedCollectionNames(): string[] {
    return this.collectionNames().filter((n) => !this.transient.has(n));
  }

  /** Every slot in its saved form (slots loaded but never used stay as they were read). */
  savedSlots(): Record<string, unknown> {
    const out: Record<string, unknown> = Object.fromEntries(this.pendingSlots);
    for (const [name, v] of this.slots) {
      const codec = this.slotKeys.get(name)?.codec;
      out[name] = codec ? codec.save(v) : v;
    }
    return out;
  }

  /** Replaces a slot's value by its saved form (decoded now if its module already uses it). */
  loadSlot(name: string, saved: unknown): void {
    const key = this.slotKeys.get(name);
    if (key) this.slots.set(name, key.codec ? key.codec.load(saved) : saved);
    else this.pendingSlots.set(name, saved);
  }

  userByName(screenName: string): SandboxUser | undefined {
    const s = screenName.replace(/^@/, '').toLowerCase();
    for (const u of this.users.values()) if (u.screen_name.toLowerCase() === s) return u;
    return undefined;
  }

  issueUserToken(appKey: string, userId: string, accessLevel: UserToken['accessLevel']): UserToken {
    const t: UserToken = {
      token: `${userId}-${randomToken(32)}`,
      secret: randomToken(45),
      appKey,
      userId,
      accessLevel,
      invalidated: false,
      createdAt: Date.now(),
    };
    this.userTokens.set(t.token, t);
    return t;
  }

  counts(): Record<string, number> {
    const out: Record<string, number> = {
      apps: this.apps.size,
      users: this.users.size,
      user_tokens: [...this.userTokens.values()].filter((t) => !t.invalidated).length,
      request_tokens: this.requestTokens.size,
      bearer_tokens: [...this.apps.values()].filter((a) => a.bearer).length,
      oauth2_access_tokens: [...this.oauth2Access.values()].filter((t) => !t.revoked).length,
      oauth2_refresh_tokens: [...this.oauth2Refresh.values()].filter((t) => !t.dead).length,
    };
    for (const [name, c] of this.collections) out[name] = c.size;
    return out;
  }
}
