// Request and reply types of the sandbox, and the three error shapes of docs/contract.md, notes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAUTH2_PROBLEMS } from '../contract/oauth2.js';
import { stringifyJson } from '../core/json.js';
import { V1Code } from '../contract/service-errors.js';
import type { ErrorStyle } from '../contract/endpoint.js';
import {
  messageOf,
  validate,
  type Described,
  type EndpointInput,
  type Invalid,
  type ValidateEnv,
} from '../contract/params.js';

export type { ErrorStyle };

export interface AuthInfo {
  kind: 'oauth1-user' | 'oauth1-app' | 'bearer' | 'oauth2-user' | 'basic' | 'none';
  appKey?: string;
  userId?: string;
  token?: string;
  /** OAuth 1.0a user tokens: the permission level the token was issued with. */
  accessLevel?: 'read' | 'read-write' | 'read-write-directmessages';
  /** OAuth 2.0 user tokens: the granted scopes. */
  scopes?: string[];
}

export interface SReq {
  method: string;
  url: URL;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: Buffer;
  /** What the route's body scanner made of the body as it arrived (router.ts `scan`). */
  scanned?: unknown;
  /** Decoded form body pairs (application/x-www-form-urlencoded), else []. */
  form: Array<[string, string]>;
  params: Record<string, string>;
  auth: AuthInfo;
  raw: IncomingMessage;
  /** Query and form parameters merged (form wins), first value of each. */
  param(name: string): string | undefined;
  /** Every value of a parameter, form then query (`a=1&a=2`, how `requests` sends a list). */
  paramAll(name: string): string[];
  /** The JSON body, or a 400 in the right error shape. */
  json(): unknown;
  /** The OAuth 1.0a parameters of a request signed with them (the oauth_* of its header or body). */
  oauth?: Record<string, string>;
}

export interface Reply {
  status: number;
  body?: unknown; // objects are JSON-encoded
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Takes over the response (streams). */
  stream?: (res: ServerResponse, req: IncomingMessage) => void;
}

/** Thrown by handlers; rendered with the reply it carries. */
export class SandboxError extends Error {
  constructor(readonly reply: Reply) {
    super(typeof reply.body === 'object' ? stringifyJson(reply.body) : String(reply.text ?? reply.status));
  }
}

export function ok(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return { status, body, headers };
}

/** v1.1 style: {"errors":[{"code":int,"message"}]} */
export function v1Error(
  status: number,
  code: V1Code,
  message: string,
  extra: Record<string, unknown> = {},
): SandboxError {
  return new SandboxError({ status, body: { errors: [{ code, message, ...extra }] } });
}

/** v2 problem form. */
export function problem(
  status: number,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
): SandboxError {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z]+/g, '-')
    .replace(/^-|-$/g, '');
  return new SandboxError({
    status,
    body: { title, detail, type: `https://api.x.com/2/problems/${slug}`, status, ...extra },
    contentType: PROBLEM_JSON,
  });
}

/** The media type of a v2 Problem body (the platform's OpenAPI specification, version 2.167). */
export const PROBLEM_JSON = 'application/problem+json';

/** A refused value as a Problem's `value` says it: a string (text as it is, anything else as JSON). */
export function problemValue(v: unknown): string {
  return typeof v === 'string' ? v : Buffer.isBuffer(v) ? `${v.length} bytes` : (JSON.stringify(v) ?? String(v));
}

/**
 * The v2 not-found problem (XDK's ResourceNotFoundProblem): it names the kind of resource and its
 * id, so a client can tell "no such webhook" from "no such route".
 */
export function notFound(resourceType: string, id: string, parameter: string, detail?: string): SandboxError {
  return problem(404, 'Not Found Error', detail ?? `Could not find ${resourceType} with ${parameter}: [${id}].`, {
    resource_type: resourceType,
    resource_id: id,
    parameter,
    value: id,
  });
}

/** Ads style: {"errors":[{"code":"STRING","message","parameter"}],"request":{"params":{}}} */
export function adsError(
  status: number,
  code: string,
  message: string,
  parameter?: string,
  params: Record<string, unknown> = {},
): SandboxError {
  return new SandboxError({
    status,
    body: { errors: [{ code, message, ...(parameter ? { parameter } : {}) }], request: { params } },
  });
}

/** A v2 problem body given verbatim (the observed ones carry `"type":"about:blank"`). */
export function problemBody(body: { status: number } & Record<string, unknown>): SandboxError {
  return new SandboxError({ status: body.status, body, contentType: PROBLEM_JSON });
}

/** Expired, revoked or unknown OAuth 2.0 user token (docs/contract.md, notes-2 "Using the token on v2"). */
export const OAUTH2_UNAUTHORIZED = () => problemBody({ ...OAUTH2_PROBLEMS.unauthorized });
/** A user token without the scope the endpoint (or event type) needs: the platform names nothing. */
export const OAUTH2_FORBIDDEN = () => problemBody({ ...OAUTH2_PROBLEMS.forbidden });

/** An OAuth 1.0a token whose permission level is too low for the request (docs/contract.md, notes-2 section 2). */
export const OAUTH1_PERMISSIONS = () =>
  problemBody({
    title: 'Forbidden',
    status: 403,
    detail: 'Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.',
    type: 'https://api.x.com/2/problems/oauth1-permissions',
  });

export const SIGNATURE_ERROR = () => v1Error(401, V1Code.AuthFailed, 'Could not authenticate you.');

/**
 * A request whose OAuth 1.0a signature does not hold: v1.1's code 32 on v1.1 and ads routes, the
 * v2 `about:blank` Unauthorized Problem on v2 routes (as an unknown bearer is answered there).
 */
export function signatureError(style: string | undefined): SandboxError {
  return style === 'v2' ? OAUTH2_UNAUTHORIZED() : SIGNATURE_ERROR();
}
export const EXPIRED_TOKEN = () => v1Error(401, V1Code.InvalidOrExpiredToken, 'Invalid or expired token.');

/**
 * A failure with one of the platform's names (CrcValidationFailed...), as a v2 problem object
 * (docs/contract.md, notes, XDK's InvalidRequestProblem / ResourceNotFoundProblem): the body is the
 * problem, and `errors` repeats it with the failure name in `code` for clients that read items.
 */
export function failure(
  status: number,
  name: string,
  detail: string,
  extra: Record<string, unknown> = {},
): SandboxError {
  const title = status === 404 ? 'Not Found Error' : 'Invalid Request';
  const slug = status === 404 ? 'resource-not-found' : 'invalid-request';
  const p = { title, detail, type: `https://api.x.com/2/problems/${slug}`, status, ...extra };
  return new SandboxError({ status, body: { ...p, errors: [{ ...p, code: name }] }, contentType: PROBLEM_JSON });
}

/**
 * The sandbox's side of the one validate() (contract/params.ts): the first parameter the
 * endpoint refuses, as the v2 problem the service answers (400 Invalid Request, the parameter
 * and the value; a failure named by the platform, WebhookIdInvalid say, carries its name), in
 * the words the CLI uses. `env`: the sandbox's clock for the rules that read it; loopback http
 * receivers always stand in for public ones here (docs/contract.md, design "Sandbox").
 */
export function checkV2Input(e: Described, input: EndpointInput, env: ValidateEnv = {}): void {
  const v = validate(e, input, { loopback: true, ...env });
  if (!v) return;
  const extra = { parameter: v.label ?? v.name, ...(v.value !== undefined ? { value: problemValue(v.value) } : {}) };
  if (v.code !== undefined) throw failure(400, String(v.code), messageOf(v, 'service'), extra);
  throw problem(400, 'Invalid Request', messageOf(v, 'service'), extra);
}

/**
 * The same in v1.1's error shape: a missing parameter is code 170 (MissingParameter), worded by
 * `missing` (validate()'s words unless the endpoint's family has the platform's own), unless the
 * parameter names its own code; any other refusal in validate()'s words with the parameter's
 * code (44, invalid parameter, by default).
 */
export function checkV1Input(
  e: Described,
  input: EndpointInput,
  missing: (v: Invalid) => string = (v) => messageOf(v, 'service'),
): void {
  const v = validate(e, input);
  if (!v) return;
  if (v.code === undefined && v.words.startsWith('is required'))
    throw v1Error(400, V1Code.MissingParameter, missing(v));
  throw v1Error(400, Number(v.code ?? V1Code.InvalidParameter) as V1Code, messageOf(v, 'service'));
}

/** A query string as validate() reads it (the first value of each name). */
export function queryOf(req: SReq): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [k, v] of req.query) if (!(k in q)) q[k] = v;
  return q;
}

/** A page token the sandbox gives: the offset of the next page, in 16 hexadecimal characters. */
export function pageToken(offset: number): string {
  return offset.toString(16).padStart(16, '0');
}

/** Where a page starts: 0 without a token; a token the list did not give is refused. */
export function pageStart(token: string | null, size: number): number {
  if (token === null) return 0;
  const start = /^[0-9a-f]{16}$/.test(token) ? Number.parseInt(token, 16) : Number.NaN;
  if (!Number.isSafeInteger(start) || start > size)
    throw problem(400, 'Invalid Request', 'pagination_token is not a token this list gave', {
      parameter: 'pagination_token',
      value: token,
    });
  return start;
}
