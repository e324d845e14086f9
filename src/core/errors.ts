// Typed errors. Commands throw these; only main.ts maps them to exit codes and prints them.
import { AdsCode, ReadOnlyCode, V1Code, WebhookCode } from '../contract/service-errors.js';

export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  AUTH: 3,
  PARTIAL: 4,
  /**
   * `audiences sync` / `apply`: the run finished what it could send, but the audience does not
   * equal the file (members no snapshot knows stay, or rejected rows kept members); the summary
   * names the divergence. Running again does not mend it: a person must decide.
   */
  DIVERGED: 5,
  /** `audiences sync --plan`: there are changes to send (for CI). */
  CHANGES: 10,
  /**
   * Nothing was done and nothing is wrong: run again later (another run holds the lock, the
   * --deadline passed). 75 is sysexits' EX_TEMPFAIL, which schedulers and mail systems retry.
   */
  RETRY_LATER: 75,
  INTERRUPTED: 130,
} as const;

/** The code of a profile's keychain out of reach: what reads a profile in passing lets it through. */
export const KEYCHAIN_UNREACHABLE = 'keychain_unreachable';

export interface ErrorDetails {
  status?: number;
  code?: string | number;
  parameter?: string;
  hint?: string;
}

export class XctlError extends Error {
  exitCode: number = ExitCode.FAILURE;
  status?: number;
  code?: string | number;
  parameter?: string;
  hint?: string;
  /**
   * What a run that stopped part-way had done (an upload's or a sync's summary): printed on
   * stdout with `"status"` when the output is JSON, so a CI artifact exists exactly then.
   */
  summary?: Record<string, unknown>;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = new.target.name;
    Object.assign(this, stripUndefined({ ...details } as Record<string, unknown>));
  }

  toJSON(): Record<string, unknown> {
    return stripUndefined({
      type: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      parameter: this.parameter,
      hint: this.hint,
      exit_code: this.exitCode,
    });
  }
}

/** Bad flags or input: nothing was sent. Exit 2. */
export class UsageError extends XctlError {
  override exitCode: number = ExitCode.USAGE;
  flag?: string;
  constructor(message: string, details: ErrorDetails & { flag?: string } = {}) {
    super(message, details);
    this.flag = details.flag;
  }
}

/** The service answered with an error. Exit 1 (3 for 401/403, see AuthError). */
export class ApiError extends XctlError {
  body?: unknown;
  constructor(message: string, details: ErrorDetails & { body?: unknown } = {}) {
    super(message, details);
    this.body = details.body;
  }
}

/** 401/403, or missing credentials. Exit 3. */
export class AuthError extends ApiError {
  override exitCode: number = ExitCode.AUTH;
}

/** 429 that could not be waited out within --max-wait. */
export class RateLimitError extends ApiError {
  resetAt?: number;
  constructor(message: string, details: ErrorDetails & { body?: unknown; resetAt?: number } = {}) {
    super(message, details);
    this.resetAt = details.resetAt;
  }
}

/** Connection refused, reset, DNS, TLS, timeout. Exit 1. */
export class NetworkError extends XctlError {
  /** The request never left (the connection was not made): sending it again cannot repeat it. */
  declare notSent?: boolean;
  /** A retry within seconds cannot mend it (nothing listens on a loopback port, no such host). */
  declare final?: boolean;
  /** The request was aborted (Ctrl-C, a deadline): not a failure of the network. */
  declare aborted?: boolean;
}

/** Work left undone but resumable (a journal was kept). Exit 4. */
export class PartialError extends XctlError {
  override exitCode: number = ExitCode.PARTIAL;
}

/** The audience does not equal its file after the run (see ExitCode.DIVERGED). Exit 5. */
export class DivergedError extends XctlError {
  override exitCode: number = ExitCode.DIVERGED;
}

/** Another run holds the lock, or the --deadline passed: retry later. Exit 75. */
export class RetryLaterError extends XctlError {
  override exitCode: number = ExitCode.RETRY_LATER;
}

/** A named thing of this name exists already (--if-exists fail, or the service said so). Exit 1. */
export class DuplicateError extends XctlError {
  constructor(
    message: string,
    readonly existingId: string,
    details: { hint?: string; status?: number } = {},
  ) {
    super(message, { code: 'DUPLICATE', ...details });
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), existing_id: this.existingId };
  }
}

/** Ctrl-C: stopped cleanly. Exit 130. */
export class InterruptedError extends XctlError {
  override exitCode: number = ExitCode.INTERRUPTED;
}

/** Not a failure: an answer given by the exit code alone (sync --plan found changes: exit 10). Prints nothing. */
export class PlanHasChanges extends XctlError {
  override exitCode: number = ExitCode.CHANGES;
  readonly silent = true;
}

/** A check (webhooks verify, auth status) that ran fine but answered "no". Exit 1, no "error:" prefix noise. */
export class CheckFailed extends XctlError {}

function stripUndefined<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const RATE_HINT = 'rate limit exceeded: wait for the reset time or raise --max-wait';
const READ_ONLY_HINT =
  "the user token is read-only: raise the app's permission, then sign in again with write access (`xctl auth login --access-level write`)";
const HINTS: Record<string, string> = {
  [V1Code.AuthFailed]:
    'the signature was rejected: check the API key/secret and the access token/secret (`xctl auth status`)',
  [V1Code.InvalidOrExpiredToken]:
    'the token is invalid or expired: log in again (`xctl auth login`) or set new credentials (`xctl auth set`)',
  [V1Code.TokenRequestedTooOften]:
    'bearer tokens must be cached: `xctl auth app-token` reuses the cached one instead of asking again',
  [V1Code.AppOnlyForbidden]: 'an app-only bearer cannot call a user endpoint: use `--auth user`',
  [V1Code.RateLimitExceeded]: RATE_HINT,
  [AdsCode.UnauthorizedAccess]:
    'the user token has no access to this account: check --account and `xctl ads accounts list`',
  [AdsCode.AccountNotFound]: 'no such ads account for this user: see `xctl ads accounts list`',
  [AdsCode.TooManyRequests]: RATE_HINT,
  [AdsCode.RouteNotFound]: 'the path does not exist on this API version',
  // A read-only OAuth 1.0a token on a write, in its three forms.
  [AdsCode.ReadonlyClientApplication]: READ_ONLY_HINT,
  [ReadOnlyCode.V2Problem]: READ_ONLY_HINT,
  [ReadOnlyCode.V1Legacy]: READ_ONLY_HINT,
  // v2 webhook management (webhooks create, validate).
  [WebhookCode.CrcValidationFailed]:
    'the URL did not answer the challenge: it must answer GET ?crc_token=T within 3 seconds, without redirecting, with 200 and {"response_token":"sha256=..."}, the HMAC-SHA256 of T keyed with the API secret (`xctl webhooks crc T` prints the expected answer; `xctl webhooks listen` is a receiver that does it)',
  [WebhookCode.DuplicateUrlFailed]:
    'this app already has a webhook with this URL: `xctl webhooks list` shows its id (use it, or delete it first with `xctl webhooks delete ID`)',
  [WebhookCode.WebhookLimitExceeded]:
    'the app has as many webhooks as it may: delete one it no longer uses (`xctl webhooks list`, then `xctl webhooks delete ID`)',
  [WebhookCode.UrlValidationFailed]:
    'the URL is not one the service accepts: https, a public host name, no port, at most 200 characters',
};

/**
 * Builds the typed error from a failed response. Handles the three error shapes of
 * docs/contract.md, notes: v1.1 `{"errors":[{"code":int,"message"}]}`, v2 problem
 * (`{"title","detail","type",...}` or `{"errors":[problem]}`) and ads
 * (`{"errors":[{"code":"STRING","message","parameter"}]}`).
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  opts: { resetAt?: number; fallbackText?: string } = {},
): ApiError {
  let message = '';
  let code: string | number | undefined;
  let parameter: string | undefined;
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const first = Array.isArray(b.errors) && b.errors.length > 0 ? (b.errors[0] as Record<string, unknown>) : undefined;
  if (first) {
    code = (first.code as string | number | undefined) ?? undefined;
    message = String(first.message ?? first.detail ?? first.title ?? '');
    parameter = typeof first.parameter === 'string' ? first.parameter : undefined;
    if (!code && typeof first.type === 'string') code = problemCode(first.type);
    if (Array.isArray(b.errors) && b.errors.length > 1) message += ` (and ${b.errors.length - 1} more)`;
  } else if (Array.isArray(b.operation_errors)) {
    // An ads batch refused by an item (docs/contract.md, ads 7): the first failing item, by its position.
    const at = b.operation_errors.findIndex((e) => Array.isArray(e) && e.length > 0);
    const row: unknown = at >= 0 ? b.operation_errors[at] : undefined;
    const item: unknown = Array.isArray(row) ? row[0] : undefined;
    if (item !== null && typeof item === 'object') {
      const [c, m, p]: unknown[] = ['code', 'message', 'parameter'].map((k) => Reflect.get(item, k));
      code = typeof c === 'string' ? c : undefined;
      message = `item ${at + 1}: ${String(m ?? '')}`;
      parameter = typeof p === 'string' ? p : undefined;
    }
  } else if (typeof b.title === 'string' || typeof b.detail === 'string') {
    // The OAuth 2.0 problems repeat themselves ({"title":"Forbidden","detail":"Forbidden"}): say it once.
    message = [...new Set([b.title, b.detail].filter((x) => typeof x === 'string' && x))].join(': ');
    code = typeof b.type === 'string' ? problemCode(b.type) : undefined;
    parameter = typeof b.parameter === 'string' ? b.parameter : undefined;
  } else if (typeof b.error === 'string') {
    message = String(b.error_description ?? b.error);
    // v1.1's legacy read-only answer: {"request":"/1.1/...","error":"Read-only application cannot POST."}
    if (/^Read-only application cannot/i.test(b.error)) code = ReadOnlyCode.V1Legacy;
  }
  if (!message) message = opts.fallbackText ? summarizeText(opts.fallbackText) : `HTTP ${status}`;
  message = oneLine(message);
  if (parameter !== undefined) parameter = oneLine(parameter);
  if (typeof code === 'string') code = oneLine(code);
  const hint = code !== undefined ? HINTS[String(code)] : undefined;
  const details = { status, code, parameter, hint, body };
  const full = `${message} (HTTP ${status}${code !== undefined ? `, code ${code}` : ''}${parameter ? `, parameter ${parameter}` : ''})`;
  if (status === 429) return new RateLimitError(full, { ...details, resetAt: opts.resetAt, hint: hint ?? RATE_HINT });
  // An account id that does not exist (403 ACCOUNT_NOT_FOUND) is a wrong --account, not a
  // credential problem: exit 1, so that a pipeline does not go looking for its secrets.
  if ((status === 401 || status === 403) && String(code) !== AdsCode.AccountNotFound)
    return new AuthError(full, details);
  return new ApiError(full, details);
}

/**
 * The service's words stay on the line xctl gives them: a newline in a message would let it
 * print a line of its own that reads as xctl's (`hint: run curl ... | sh`). The other controls
 * (a carriage return among them) are escaped when printed, as all service text is.
 */
function oneLine(text: string): string {
  return text.replace(/\n/g, '\\u000a');
}

function problemCode(type: string): string | undefined {
  // The OAuth 2.0 problems carry "about:blank": no code to report.
  if (type === 'about:blank') return undefined;
  const m = /problems\/([a-z0-9-]+)/i.exec(type);
  return m ? m[1]! : type;
}

function summarizeText(text: string): string {
  const t = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!t) return 'empty response';
  const short = t.length > 160 ? t.slice(0, 157) + '...' : t;
  return /<[a-z!]/i.test(text) ? `unexpected response: ${short}` : short;
}

/** The message of anything thrown: an error's (from any realm), else its string form. */
export function errorMessage(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string') return e.message;
  return String(e);
}

/** The system error code of anything thrown (ENOENT, EEXIST...), when it has one. */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null || !('code' in e)) return undefined;
  return typeof e.code === 'string' ? e.code : undefined;
}
