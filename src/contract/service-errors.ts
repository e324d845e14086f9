// The service's error codes, named once (node-twitter-api-v2's errors.types.ts). The CLI
// recognises them (hints, dropping a rejected bearer); the sandbox answers with them.

/** Integer codes of the v1.1 error shape `{"errors":[{"code":int,"message"}]}` (docs/contract.md, notes). */
export enum V1Code {
  /** Bad OAuth 1.0a signature or unknown consumer key. */
  AuthFailed = 32,
  /** No such page (unknown route). */
  PageNotFound = 34,
  /** A parameter with a value the endpoint does not take. */
  InvalidParameter = 44,
  RateLimitExceeded = 88,
  /** A token that was invalidated, or never existed. */
  InvalidOrExpiredToken = 89,
  /** POST /oauth2/token refused: wrong key or secret, or a bearer asked for too often. */
  TokenRequestedTooOften = 99,
  InternalError = 131,
  /** A required parameter is missing. */
  MissingParameter = 170,
  /** Missing or malformed credentials (also a missing oauth_callback). */
  BadAuthenticationData = 215,
  /** An app-only bearer on a user-context endpoint. */
  AppOnlyForbidden = 220,
  /** The sandbox's answer to an oversized body (the service only closes the connection). */
  PayloadTooLarge = 413,
  /** oauth_callback not among the app's approved callback URLs. */
  CallbackNotApproved = 415,
  /** invalidate_token not allowed (not the owner, or not an outstanding token). */
  InvalidateNotPermitted = 348,
}

/** String codes of the ads error shape `{"errors":[{"code":"STRING","message","parameter"}]}` (docs/contract.md, ads 7). */
export const AdsCode = {
  InvalidParameter: 'INVALID_PARAMETER',
  MissingParameter: 'MISSING_PARAMETER',
  NotFound: 'NOT_FOUND',
  UnauthorizedAccess: 'UNAUTHORIZED_ACCESS',
  AccountNotFound: 'ACCOUNT_NOT_FOUND',
  TooManyRequests: 'TOO_MANY_REQUESTS',
  RouteNotFound: 'ROUTE_NOT_FOUND',
  /** A read-only OAuth 1.0a token on an ads write (docs/contract.md, notes-2 section 2, **Proposal**). */
  ReadonlyClientApplication: 'READONLY_CLIENT_APPLICATION',
} as const;
export type AdsCode = (typeof AdsCode)[keyof typeof AdsCode];

/** Failure names of v2 webhook management, carried as `code` of the problem's `errors` items (docs/contract.md, notes). */
export const WebhookCode = {
  CrcValidationFailed: 'CrcValidationFailed',
  UrlValidationFailed: 'UrlValidationFailed',
  DuplicateUrlFailed: 'DuplicateUrlFailed',
  WebhookLimitExceeded: 'WebhookLimitExceeded',
  WebhookIdInvalid: 'WebhookIdInvalid',
} as const;

/** True when an error's code (number or numeric string, as parsed from a body) is `code`. */
export function hasCode(err: { code?: string | number }, code: V1Code | AdsCode): boolean {
  return err.code !== undefined && String(err.code) === String(code);
}

/**
 * A read-only OAuth 1.0a token on a write (docs/contract.md, notes-2 section 2) in its v2 problem form
 * (`type` .../problems/oauth1-permissions), and the name the CLI gives v1.1's legacy
 * `{"request","error":"Read-only application cannot POST."}` answer.
 */
export const ReadOnlyCode = { V2Problem: 'oauth1-permissions', V1Legacy: 'read-only-application' } as const;
