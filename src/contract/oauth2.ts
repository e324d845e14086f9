// OAuth 2.0 user context (docs/contract.md, notes-2 section 1): the endpoints, the scopes, which v2
// endpoints take a user token with which scopes, and the scope each activity event type needs.
// The CLI reads it for its requests, flags and hints; the sandbox for what it serves and enforces.
import { endpoint } from './endpoint.js';
import { USERS_ME_PARAMS } from './users.js';
import { param, type CrossRule, type Invalid, type ParamPlace, type ParamSpec } from './params.js';

const page = { auth: 'none', rate: 'oauth', style: 'oauth' } as const;
// The token endpoints authenticate the client themselves (Basic or client_id), not as the app.
const token = { auth: 'none', rate: 'oauth', style: 'oauth' } as const;

/** The form parameters of the token endpoints (required). */
const form = { in: 'body', required: true } as const;

/** --scopes and `scope`: the platform's scopes, joined by spaces (an unknown one: invalid_scope). */
export const OAUTH2_SCOPE_PARAM: ParamSpec = {
  name: 'scope',
  in: 'query',
  flag: '--scopes',
  required: true,
  code: 'invalid_scope',
  rule: "space-separated scopes of the platform's list",
  ok: (v) => typeof v === 'string',
  refuse: (v) => {
    if (typeof v !== 'string') return undefined;
    const list = v.split(' ').filter(Boolean);
    if (list.length === 0) return 'is empty';
    const unknown = list.filter((s) => !(OAUTH2_SCOPES as readonly string[]).includes(s));
    if (unknown.length === 0) return undefined;
    return `has unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => JSON.stringify(s.slice(0, 40))).join(', ')}`;
  },
};

/**
 * The authorize parameters (section 1 "Authorize URL"), in the order the sandbox reports them;
 * client_id and redirect_uri are checked against the app first (no redirect when they are wrong).
 * The PKCE rules: a challenge is required; its method S256 or plain, compared without case (older
 * SDKs send s256), absent meaning plain; a plain challenge may be shorter than RFC 7636's 43
 * characters (the docs' own example is `challenge`).
 */
function authorizeParams(place: ParamPlace): ParamSpec[] {
  const any = (v: unknown) => typeof v === 'string';
  return [
    { name: 'client_id', in: place, required: true, rule: "the app's OAuth 2.0 Client ID", ok: any },
    { name: 'redirect_uri', in: place, required: true, rule: "one of the app's callback URLs", ok: any },
    { ...param.oneOf('response_type', ['code'], { in: place, required: true }), code: 'unsupported_response_type' },
    { ...param.text('state', { min: 1, max: 500 }, { in: place, required: true }) },
    { ...OAUTH2_SCOPE_PARAM, in: place },
    { name: 'code_challenge', in: place, required: true, rule: 'a PKCE challenge', ok: any },
    {
      name: 'code_challenge_method',
      in: place,
      rule: 'S256 or plain',
      ok: (v) => typeof v === 'string' && /^(s256|plain)$/i.test(v),
    },
  ];
}

/** A token-endpoint parameter required with one grant type. */
function neededFor(grant: string, name: string): CrossRule {
  return {
    name,
    in: 'body',
    refuse: ({ body }) => {
      const b = body as Record<string, unknown> | undefined;
      return b?.grant_type === grant && (b[name] === undefined || b[name] === '')
        ? `is required (with grant_type=${grant})`
        : undefined;
    },
  };
}

/**
 * An OAuth 2.0 endpoint's refusal as the platform words it (RFC 6749 section 5.2 shape): a missing
 * (or empty) parameter in its pattern `Missing required parameter [name].`, any other in
 * validate()'s words.
 */
export function oauth2ErrorOf(v: Invalid): { status: 400; error: string; error_description: string } {
  if (v.words.startsWith('is required') || v.value === '') return missingParameter(v.name);
  return {
    status: 400,
    error: String(v.code ?? 'invalid_request'),
    error_description: `${v.label ?? v.name} ${v.words}`,
  };
}

export const OAUTH2_ENDPOINTS = {
  authorize: endpoint('GET', '/i/oauth2/authorize', {
    ...page,
    doc: 'the consent page (response_type, client_id, redirect_uri, scope, state, code_challenge[_method])',
    params: authorizeParams('query'),
    answer: 'the consent page (HTML); errors: 302 to redirect_uri?error=...&state=...',
  }),
  authorizeDecision: endpoint('POST', '/i/oauth2/authorize', {
    ...page,
    doc: 'sandbox only: the consent form; 302 to redirect_uri with code and state, or error',
    params: [
      ...authorizeParams('body'),
      param.oneOf('decision', ['allow', 'deny'], { in: 'body', required: true }),
      { name: 'screen_name', in: 'body', rule: 'a sandbox user', ok: (v) => typeof v === 'string' },
    ],
    answer: '302 to redirect_uri?state=...&code=... (or error=access_denied)',
  }),
  token: endpoint('POST', '/2/oauth2/token', {
    ...token,
    doc: 'grant_type=authorization_code (code, redirect_uri, code_verifier) or refresh_token',
    params: [
      { ...param.oneOf('grant_type', ['authorization_code', 'refresh_token'], form), code: 'unsupported_grant_type' },
    ],
    rules: [
      neededFor('authorization_code', 'code'),
      neededFor('authorization_code', 'redirect_uri'),
      neededFor('authorization_code', 'code_verifier'),
      neededFor('refresh_token', 'refresh_token'),
    ],
    answer: '{token_type,expires_in,access_token,scope,refresh_token?}',
  }),
  revoke: endpoint('POST', '/2/oauth2/revoke', {
    ...token,
    doc: 'token, token_type_hint (access_token | refresh_token)',
    params: [
      {
        name: 'token',
        in: 'body',
        required: true,
        rule: 'a token of this client',
        ok: (v) => typeof v === 'string' && v !== '',
      },
      param.oneOf('token_type_hint', ['access_token', 'refresh_token'], form),
    ],
    answer: '{"revoked":true}',
  }),
  me: endpoint('GET', '/2/users/me', {
    auth: 'user',
    rate: 'default',
    style: 'v2',
    op: 'getUsersMe',
    doc: 'the user a token belongs to; OAuth 2.0 user tokens per the scope table below',
    params: USERS_ME_PARAMS,
    answer: '{"data":{id,name,username,...user.fields}}',
  }),
} as const;

/** Lifetimes: access token 2 h (expires_in 7200), code 30 s single use, refresh token 180 days (proposal). */
export const OAUTH2_LIFETIMES = { accessTokenS: 7200, codeS: 30, refreshTokenS: 180 * 24 * 3600 } as const;

/** Every scope the platform knows: the docs' table, the OpenAPI additions and the ads pair. */
export const OAUTH2_SCOPES = [
  'tweet.read',
  'tweet.write',
  'tweet.moderate.write',
  'users.read',
  'users.email',
  'follows.read',
  'follows.write',
  'offline.access',
  'space.read',
  'mute.read',
  'mute.write',
  'like.read',
  'like.write',
  'list.read',
  'list.write',
  'block.read',
  'block.write',
  'bookmark.read',
  'bookmark.write',
  'dm.read',
  'dm.write',
  'media.write',
  'broadcast.read',
  'broadcast.write',
  'timeline.read',
  'ads.read',
  'ads.write',
] as const;

export type OAuth2Scope = (typeof OAUTH2_SCOPES)[number];

/** What `auth login --oauth2` asks for without --scopes: enough for every v2 command xctl has, plus refresh. */
export const DEFAULT_LOGIN_SCOPES: readonly OAuth2Scope[] = [
  'tweet.read',
  'users.read',
  'follows.read',
  'like.read',
  'mute.read',
  'block.read',
  'dm.read',
  'dm.write',
  'offline.access',
];

/** The scope that lets a token refresh itself: only with it does the token endpoint issue a refresh token. */
export const OFFLINE_SCOPE: OAuth2Scope = 'offline.access';

/** Verifier alphabet and length (RFC 7636 section 4.1). */
export const PKCE = { verifierPattern: /^[A-Za-z0-9\-._~]{43,128}$/, methods: ['S256', 'plain'] as const } as const;

/**
 * The scope a user token needs to subscribe to an activity event type (OpenAPI description of
 * POST /2/activity/subscriptions). The notes' disagreement on broadcast.chat is settled for
 * broadcast.read; every type not named here needs tweet.read.
 */
const EVENT_SCOPES: Array<[RegExp, OAuth2Scope[]]> = [
  [/^(chat|dm)\./, ['dm.read']],
  [/^like\./, ['like.read']],
  [/^mute\./, ['mute.read']],
  [/^block\./, ['block.read']],
  [/^broadcast\.chat$/, ['broadcast.read', 'tweet.read']],
];

export function scopesForEvent(eventType: string): OAuth2Scope[] {
  for (const [re, scopes] of EVENT_SCOPES) if (re.test(eventType)) return scopes;
  return ['tweet.read'];
}

/**
 * Event types an OAuth 1.0a token may subscribe to only with direct-message permission
 * (`read-write-directmessages`): OAuth 1.0a permissions override scopes (section 1, last point).
 */
export function needsDmPermission(eventType: string): boolean {
  return /^(chat|dm)\./.test(eventType);
}

/**
 * The v2 endpoints that accept an OAuth 2.0 user token, with the scopes it must hold (OpenAPI
 * security requirements, as XDK 0.6 carries them). 'per-event' means the scope follows the
 * body's event_type (scopesForEvent). An endpoint absent here refuses user tokens with 403
 * unsupported-authentication. Paths use :name for path parameters.
 */
export const OAUTH2_ENDPOINT_SCOPES: Array<{ method: string; path: string; scopes: OAuth2Scope[] | 'per-event' }> = [
  { method: 'GET', path: '/2/users/me', scopes: ['tweet.read', 'users.read'] },
  { method: 'POST', path: '/2/activity/subscriptions', scopes: 'per-event' },
  { method: 'GET', path: '/2/activity/subscriptions', scopes: ['tweet.read', 'like.read'] },
  {
    method: 'POST',
    path: '/2/account_activity/webhooks/:webhook_id/subscriptions/all',
    scopes: ['dm.read', 'dm.write', 'tweet.read', 'users.read'],
  },
  {
    method: 'GET',
    path: '/2/account_activity/webhooks/:webhook_id/subscriptions/all',
    scopes: ['dm.read', 'dm.write', 'tweet.read', 'users.read'],
  },
  { method: 'POST', path: '/2/media/upload', scopes: ['media.write'] },
  { method: 'GET', path: '/2/media/upload', scopes: ['media.write'] },
  { method: 'POST', path: '/2/media/upload/initialize', scopes: ['media.write'] },
  { method: 'POST', path: '/2/media/upload/:id/append', scopes: ['media.write'] },
  { method: 'POST', path: '/2/media/upload/:id/finalize', scopes: ['media.write'] },
];

const shape = (p: string) => p.replace(/:[A-Za-z_]+/g, ':');

/** The OAuth 2.0 entry for a method and a path pattern (any :param names), if user tokens are accepted. */
export function oauth2Requirement(method: string, pathPattern: string): OAuth2Scope[] | 'per-event' | undefined {
  const s = shape(pathPattern);
  return OAUTH2_ENDPOINT_SCOPES.find((e) => e.method === method.toUpperCase() && shape(e.path) === s)?.scopes;
}

/** The same for a concrete path (`/2/media/upload/123/append`). */
export function oauth2RequirementForPath(method: string, path: string): OAuth2Scope[] | 'per-event' | undefined {
  const p = path.replace(/\?.*$/, '').replace(/\/+$/, '');
  for (const e of OAUTH2_ENDPOINT_SCOPES) {
    if (e.method !== method.toUpperCase()) continue;
    const re = new RegExp(
      '^' +
        e.path
          .split('/')
          .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/') +
        '$',
    );
    if (re.test(p)) return e.scopes;
  }
  return undefined;
}

/** Token endpoint errors (RFC 6749 section 5.2 shape), as the platform words them. */
export const OAUTH2_ERRORS = {
  missingAuthHeader: {
    status: 401,
    error: 'unauthorized_client',
    error_description: 'Missing valid authorization header',
  },
  badCode: {
    status: 400,
    error: 'invalid_request',
    error_description: 'Value passed for the authorization code was invalid.',
  },
  badVerifier: {
    status: 400,
    error: 'invalid_request',
    error_description: 'Value passed for the code verifier did not match the code challenge.',
  },
  badToken: { status: 400, error: 'invalid_request', error_description: 'Value passed for the token was invalid.' },
  badRedirect: {
    status: 400,
    error: 'invalid_request',
    error_description: 'Value passed for the redirect uri did not match the uri of the authorization code.',
  },
} as const;

/** `Missing required parameter [name].`: the platform's pattern for any missing token-endpoint parameter. */
export function missingParameter(name: string): { status: 400; error: 'invalid_request'; error_description: string } {
  return { status: 400, error: 'invalid_request', error_description: `Missing required parameter [${name}].` };
}

/** The v2 problem bodies a user token meets (observed; no `type` URL beyond about:blank). */
export const OAUTH2_PROBLEMS = {
  unauthorized: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
  forbidden: { title: 'Forbidden', type: 'about:blank', status: 403, detail: 'Forbidden' },
} as const;
