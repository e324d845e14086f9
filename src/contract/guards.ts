// Type guards for data that comes from outside (JSON bodies, files, answers) or from lists of
// literals the contract names: they narrow the value where a cast would only assert it.

import type { AddressInfo } from 'node:net';

/** `v` is one of `list`'s values (a typed `includes`). */
export function isOneOf<T>(list: readonly T[], v: unknown): v is T {
  return list.some((x) => x === v);
}

/** `v` is a JSON object: not null, not an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` is an array of strings. */
export function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** A list the contract has validated already (a list param, a stored record's ids): [] when absent. */
export function listOf(v: unknown): string[] {
  return isStringArray(v) ? v : [];
}

/** A list the contract has validated already, or undefined when it was not given. */
export function listOrUndefined(v: unknown): string[] | undefined {
  return isStringArray(v) ? v : undefined;
}

/** A value the contract has validated as a string, or undefined when it was not given. */
export function stringOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A stream chunk as bytes: streams without an encoding give Buffers; a string is its UTF-8. */
export function bufferOf(c: unknown): Buffer {
  if (Buffer.isBuffer(c)) return c;
  if (c instanceof Uint8Array) return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
  return Buffer.from(String(c));
}

/** The address a listening TCP server is bound to (a pipe or a closed server has none). */
export function boundAddress(server: { address(): AddressInfo | string | null }): AddressInfo {
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('the server is not listening on a TCP port');
  return a;
}
