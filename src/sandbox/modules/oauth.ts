// Credentials: the OAuth 1.0a three-legged flow, token invalidation, and OAuth 2.0 app-only bearers
// (docs/contract.md, credentials sections 3.1, 4.1, 4.2; docs/contract.md, notes "Token endpoints").
import type { SandboxApp } from '../app.js';
import { userV1 } from '../user-profile.js';
import { checkV1Input as checkV1, ok, queryOf, v1Error, SandboxError, type Reply, type SReq } from '../http.js';
import { validate, type Described, type EndpointInput } from '../../contract/params.js';
import { randomDigits, randomToken, type RequestToken, type SandboxAppRecord } from '../state.js';
import { isLoopbackHost } from '../../contract/hosts.js';
import { OAUTH_ENDPOINTS as E } from '../../contract/oauth.js';
import { V1Code } from '../../contract/service-errors.js';
import { v1True } from '../../contract/users.js';
import { timingSafeEqualStr } from '../verify.js';

const REQUEST_TOKEN_TTL_MS = 15 * 60_000;

// Request tokens age on the sandbox clock, so a manual clock can expire them in tests.
function expired(app: SandboxApp, rt: RequestToken): boolean {
  return app.clock.now() - rt.createdAt > REQUEST_TOKEN_TTL_MS;
}

function formReply(pairs: Record<string, string>): Reply {
  return { status: 200, text: new URLSearchParams(pairs).toString(), contentType: 'application/x-www-form-urlencoded' };
}

function oauthParams(req: SReq): Record<string, string> {
  return req.oauth ?? {};
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function page(title: string, body: string, status = 200): Reply {
  return {
    status,
    contentType: 'text/html; charset=utf-8',
    text: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f5f8fa;color:#14171a;margin:0;padding:40px 16px}
main{max-width:460px;margin:0 auto;background:#fff;border-radius:16px;box-shadow:0 1px 4px rgba(0,0,0,.12);padding:28px}
h1{font-size:22px;margin:0 0 8px} p{line-height:1.45;color:#536471}
.badge{display:inline-block;background:#ffd400;color:#14171a;border-radius:6px;padding:2px 8px;font-size:12px;font-weight:600;margin-bottom:12px}
label.user{display:flex;gap:10px;align-items:center;border:1px solid #cfd9de;border-radius:10px;padding:10px 12px;margin:8px 0;cursor:pointer}
.actions{display:flex;gap:12px;margin-top:20px}
button{flex:1;border:0;border-radius:999px;padding:12px;font-size:15px;font-weight:700;cursor:pointer}
#allow{background:#1d9bf0;color:#fff} #deny{background:#eff3f4;color:#0f1419}
label.field{display:block;font-weight:600;margin:12px 0 4px} input#username,input#password{width:100%;box-sizing:border-box;padding:10px;border:1px solid #cfd9de;border-radius:8px;font-size:15px}
.note{font-size:13px}
code#pin{display:block;font-size:32px;letter-spacing:6px;text-align:center;margin:16px 0;font-weight:700}
ul{color:#536471}
</style></head><body><main><span class="badge">xctl sandbox</span>${body}</main></body></html>`,
  };
}

function authorizePage(app: SandboxApp, req: SReq, mode: 'authorize' | 'authenticate'): Reply {
  const token = req.query.get('oauth_token') ?? '';
  const rt = app.state.requestTokens.get(token);
  const e = mode === 'authorize' ? E.authorizePage : E.authenticatePage;
  if (validate(e, { query: queryOf(req) }) || !rt || rt.used || rt.verifier || expired(app, rt)) {
    return page(
      'Invalid request',
      '<h1>This page is no longer valid</h1><p>The request token is missing, used or expired. Start the sign-in again from your application.</p>',
      400,
    );
  }
  const appRec = app.state.apps.get(rt.appKey)!;
  const forceLogin = /^(true|1)$/i.test(req.query.get('force_login') ?? '');
  const prefill = req.query.get('screen_name') ?? '';
  // authenticate: a user who already approved this app (remembered by a cookie) skips the page.
  const cookieUser = /(?:^|;\s*)sandbox_user=(\d+)/.exec(String(req.headers.cookie ?? ''))?.[1];
  if (mode === 'authenticate' && !forceLogin && cookieUser && appRec.approvedBy.has(cookieUser)) {
    return decide(app, rt, cookieUser, 'allow');
  }
  const users = [...app.state.users.values()];
  const selected = app.state.userByName(prefill)?.id ?? (forceLogin ? undefined : cookieUser) ?? users[0]!.id;
  const access = rt.accessType === 'read' ? 'Read' : 'Read and write';
  // force_login "forces credential entry" (section 4.1): a login box instead of the account list,
  // prefilled with screen_name. Sandbox accounts accept any non-empty password.
  const rows = forceLogin
    ? `<p id="force-login">Sign in to continue.</p>
<label class="field" for="username">Username</label><input id="username" name="screen_name" value="${esc(prefill.replace(/^@/, ''))}" autocomplete="username" required>
<label class="field" for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<input type="hidden" name="force_login" value="true">
<p class="note">Sandbox accounts: ${users.map((u) => '@' + esc(u.screen_name)).join(', ')} (any password).</p>`
    : users
        .map(
          (u) =>
            `<label class="user"><input type="radio" name="screen_name" value="${esc(u.screen_name)}"${u.id === selected ? ' checked' : ''}> <span><strong>${esc(u.name)}</strong> @${esc(u.screen_name)}</span></label>`,
        )
        .join('\n');
  return page(
    `Authorize ${appRec.name}`,
    `<h1>Authorize <span id="app-name">${esc(appRec.name)}</span> to use your account?</h1>
<p>This application will be able to: <strong id="access-level">${access}</strong>.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="oauth_token" value="${esc(rt.token)}">
${rows}
<div class="actions"><button id="allow" name="decision" value="allow" type="submit">Authorize app</button>
<button id="deny" name="decision" value="deny" type="submit">Cancel</button></div>
</form>`,
  );
}

function decide(app: SandboxApp, rt: RequestToken, userId: string, decision: 'allow' | 'deny'): Reply {
  const cookie = { 'set-cookie': `sandbox_user=${userId}; Path=/; HttpOnly; SameSite=Lax` };
  if (decision === 'deny') {
    rt.denied = true;
    rt.used = true;
    if (rt.callback === 'oob')
      return page('Denied', '<h1 id="denied">Authorization denied</h1><p>You can close this window.</p>');
    const u = new URL(rt.callback);
    u.searchParams.set('denied', rt.token);
    return { status: 302, headers: { location: u.toString() }, text: '' };
  }
  rt.userId = userId;
  rt.verifier = rt.callback === 'oob' ? randomDigits(7) : randomToken(32);
  app.state.apps.get(rt.appKey)!.approvedBy.add(userId);
  if (rt.callback === 'oob') {
    const r = page(
      'Authorized',
      `<h1>You authorized the app</h1><p>Enter this PIN in the application to complete the sign-in:</p><code id="pin">${rt.verifier}</code>`,
    );
    return { ...r, headers: cookie };
  }
  const u = new URL(rt.callback);
  u.searchParams.set('oauth_token', rt.token);
  u.searchParams.set('oauth_verifier', rt.verifier);
  return { status: 302, headers: { location: u.toString(), ...cookie }, text: '' };
}

function appOf(app: SandboxApp, req: SReq): SandboxAppRecord {
  return app.state.apps.get(req.auth.appKey!)!;
}

/** The sandbox app accepts http callbacks on loopback, any port (docs/contract.md, design "Sandbox"). */
export function isLoopbackCallback(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

/**
 * `resources` of rate_limit_status: per family (`account`, `application`, `media`...), per v1.1
 * endpoint the sandbox serves, its real limit and what the caller has left, without spending any.
 * `resources=a,b` keeps those families.
 */
function rateLimitResources(app: SandboxApp, req: SReq): Record<string, Record<string, unknown>> {
  const want = req.query.get('resources')?.split(',').filter(Boolean);
  const caller =
    req.auth.kind === 'bearer' ? String(req.auth.appKey) : `${String(req.auth.appKey)}:${req.auth.userId ?? ''}`;
  const out: Record<string, Record<string, unknown>> = {};
  for (const r of app.router.routes) {
    const m = /^\/1\.1\/([a-z_]+)(\/.*?)?(\.json)?$/.exec(r.pattern);
    if (!m || (want && !want.includes(m[1]!))) continue;
    const key = r.pattern.replace(/^\/1\.1/, '').replace(/\.json$/, '');
    const family = out[m[1]!] ?? {};
    family[key] = app.rates.peek(r.rate ?? 'default', caller, Date.now());
    out[m[1]!] = family;
  }
  return out;
}

/** POST /1.1/oauth/invalidate_token(.json): the signing user token stops working. */
function invalidateUser(app: SandboxApp, req: SReq): Reply {
  const t = app.state.userTokens.get(req.auth.token!)!;
  t.invalidated = true;
  return ok({ access_token: t.token });
}

/** POST /oauth/request_token: a request token for a registered (or loopback) callback, or oob. */
function issueRequestToken(app: SandboxApp, req: SReq): Reply {
  const { state } = app;
  const oauth = oauthParams(req);
  // Section 5 puts oauth_callback in the Authorization header; a signed query/body copy is accepted too.
  const callback = oauth.oauth_callback ?? req.param('oauth_callback');
  const a = appOf(app, req);
  const access = req.param('x_auth_access_type');
  checkV1Input(E.requestToken, { query: { oauth_callback: callback, x_auth_access_type: access } });
  if (callback !== 'oob' && !isLoopbackCallback(callback) && !a.callbacks.includes(callback)) {
    throw v1Error(
      403,
      V1Code.CallbackNotApproved,
      'Callback URL not approved for this client application. Approved callback URLs can be adjusted in your application settings',
    );
  }
  const rt: RequestToken = {
    token: randomToken(27),
    secret: randomToken(32),
    appKey: a.key,
    callback: callback!,
    accessType: access === 'read' || access === 'write' ? access : undefined,
    used: false,
    createdAt: app.clock.now(),
  };
  // Spent and expired request tokens are dropped lazily, one sweep per new token.
  for (const [k, old] of state.requestTokens) if (old.used && expired(app, old)) state.requestTokens.delete(k);
  state.requestTokens.set(rt.token, rt);
  return formReply({ oauth_token: rt.token, oauth_token_secret: rt.secret, oauth_callback_confirmed: 'true' });
}

/** POST of the authorize page: the user's allow or deny. */
function decideAuthorization(app: SandboxApp, req: SReq): Reply {
  const { state } = app;
  const rt = state.requestTokens.get(req.param('oauth_token') ?? '');
  if (!rt || rt.used || rt.verifier || expired(app, rt))
    return page('Invalid request', '<h1>This authorization request is no longer valid</h1>', 400);
  const decision = req.param('decision');
  if (validate(E.authorizeDecision, { query: { oauth_token: rt.token, decision } }))
    return page('Invalid request', '<h1>Choose Authorize or Cancel</h1>', 400);
  if (decision === 'allow' && req.param('force_login') === 'true' && !req.param('password')) {
    return page('Sign in', '<h1>Enter your password</h1><p>Go back and sign in to continue.</p>', 400);
  }
  const user =
    state.userByName(req.param('screen_name') ?? '') ??
    (decision === 'deny' ? [...state.users.values()][0] : undefined);
  if (!user)
    return page(
      'Invalid request',
      '<h1>No such account</h1><p>Go back and choose one of the sandbox accounts.</p>',
      400,
    );
  return decide(app, rt, user.id, decision === 'allow' ? 'allow' : 'deny');
}

/** POST /oauth/access_token: the verifier (required, single-use) for a user token. */
function issueAccessToken(app: SandboxApp, req: SReq): Reply {
  const { state } = app;
  const oauth = oauthParams(req);
  const rt = oauth.oauth_token ? state.requestTokens.get(oauth.oauth_token) : undefined;
  const verifier = oauth.oauth_verifier ?? req.param('oauth_verifier');
  // The verifier is strictly required and single-use (docs/contract.md, credentials section 7). The
  // platform answers these in plain text, not JSON.
  const fail = (text: string) => new SandboxError({ status: 401, text });
  if (!rt || rt.used || expired(app, rt)) throw fail('Invalid request token.');
  if (rt.denied) throw fail('This request token was denied by the user.');
  // A missing verifier is the contract's; the platform words it in plain text (section 7).
  if (validate(E.accessToken, { query: { oauth_token: oauth.oauth_token, oauth_verifier: verifier } }))
    throw fail('Required oauth_verifier parameter not provided');
  if (!rt.verifier || !rt.userId || !timingSafeEqualStr(verifier, rt.verifier)) {
    rt.used = true; // a wrong guess burns the request token: verifiers cannot be brute-forced
    throw fail('Error processing your OAuth request: Invalid oauth_verifier parameter');
  }
  rt.used = true;
  const level =
    rt.accessType === 'read' ? 'read' : rt.accessType === 'write' ? 'read-write' : 'read-write-directmessages';
  const t = state.issueUserToken(rt.appKey, rt.userId, level);
  const u = state.users.get(rt.userId)!;
  return formReply({ oauth_token: t.token, oauth_token_secret: t.secret, user_id: u.id, screen_name: u.screen_name });
}

/**
 * Who a user token belongs to, and its access level in the platform's x-access-level header:
 * the cheapest way for clients (and tests) to see that a token works, or no longer does.
 */
function verifyCredentials(app: SandboxApp, req: SReq): Reply {
  const { state } = app;
  const query = queryOf(req);
  checkV1Input(E.verifyCredentials, { query });
  const t = state.userTokens.get(req.auth.token!)!;
  const user = userV1(state.users.get(t.userId)!);
  // include_entities: on unless given and not true (the platform's reading of v1.1 booleans).
  if (query.include_entities !== undefined && !v1True(query.include_entities)) delete user.entities;
  return ok(user, 200, { 'x-access-level': t.accessLevel });
}

/**
 * Accepts a bearer or a user token; shows which credential the service saw (a real endpoint),
 * so a bearer's life can be checked end to end: usable while issued, 401 code 89 once revoked.
 */
function rateLimitStatus(app: SandboxApp, req: SReq): Reply {
  checkV1Input(E.rateLimitStatus, { query: queryOf(req) });
  const ctx =
    req.auth.kind === 'bearer' ? { application: `app-only:${req.auth.appKey}` } : { access_token: req.auth.token };
  return ok({ rate_limit_context: ctx, resources: rateLimitResources(app, req) });
}

/** POST /oauth2/token: the app's one bearer (grant_type in the body only; asking too often is refused). */
function issueBearer(app: SandboxApp, req: SReq): Reply {
  const a = appOf(app, req);
  // grant_type travels in the form body only (section 4.2), never the query.
  const grant = req.form.find(([k]) => k === 'grant_type')?.[1];
  // Any grant but client_credentials is answered as bad credentials are: 403 code 99.
  if (grant !== undefined && validate(E.bearerToken, { body: { grant_type: grant } }))
    throw v1Error(403, V1Code.TokenRequestedTooOften, 'Unable to verify your credentials', {
      label: 'authenticity_token_error',
    });
  checkV1Input(E.bearerToken, { body: { grant_type: grant } });
  const now = app.clock.now();
  a.tokenRequests = a.tokenRequests.filter((t) => now - t < 60_000);
  a.tokenRequests.push(now);
  if (a.tokenRequests.length > (app.options.tokenRequestsPerMinute ?? 10)) {
    throw v1Error(403, V1Code.TokenRequestedTooOften, 'Unable to verify your credentials', {
      label: 'authenticity_token_error',
    });
  }
  // One bearer per application: repeat requests get the same token until it is invalidated.
  a.bearer ??= 'AAAAAAAAAAAAAAAAAAAAA' + encodeURIComponent(randomToken(24) + '/' + randomToken(40) + '=');
  return ok({ token_type: 'bearer', access_token: a.bearer });
}

/** POST /oauth2/invalidate_token: the app owner revokes the app's bearer. */
function invalidateBearer(app: SandboxApp, req: SReq): Reply {
  const a = appOf(app, req);
  if (req.auth.userId !== a.ownerUserId)
    throw v1Error(
      403,
      V1Code.InvalidateNotPermitted,
      'Client application is not permitted to invalidate this token: sign as the application owner',
    );
  checkV1Input(E.invalidateBearer, { query: { access_token: req.param('access_token') } });
  const token = req.param('access_token')!;
  let decoded = token;
  try {
    decoded = decodeURIComponent(token);
  } catch {
    /* keep as given */
  }
  if (!a.bearer || (token !== a.bearer && decoded !== a.bearer && encodeURIComponent(token) !== a.bearer)) {
    throw v1Error(
      400,
      V1Code.InvalidateNotPermitted,
      'The token to invalidate is not an outstanding bearer token of this application',
    );
  }
  const old = a.bearer;
  a.bearer = undefined;
  return ok({ access_token: old });
}

/** The contract's check in v1.1's shape, a missing parameter in the platform's words. */
function checkV1Input(e: Described, input: EndpointInput): void {
  checkV1(e, input, (v) => `Missing required parameter: ${v.name}`);
}

/** The OAuth 1.0a and app-only (bearer) endpoints, each a named function of (app, req). */
export function install(app: SandboxApp): void {
  const r = app.router;
  r.serve(E.requestToken, (req) => issueRequestToken(app, req));
  r.serve(E.authorizePage, (req) => authorizePage(app, req, 'authorize'));
  r.serve(E.authenticatePage, (req) => authorizePage(app, req, 'authenticate'));
  r.serve(E.loginWithXPage, (req) => authorizePage(app, req, 'authenticate'));
  r.serve(E.authorizeDecision, (req) => decideAuthorization(app, req));
  r.serve(E.accessToken, (req) => issueAccessToken(app, req));
  r.serve(E.invalidateUserToken, (req) => invalidateUser(app, req));
  r.serve(E.invalidateUserTokenJson, (req) => invalidateUser(app, req));
  r.serve(E.verifyCredentials, (req) => verifyCredentials(app, req));
  r.serve(E.rateLimitStatus, (req) => rateLimitStatus(app, req));
  r.serve(E.bearerToken, (req) => issueBearer(app, req));
  r.serve(E.invalidateBearer, (req) => invalidateBearer(app, req));
}
