// OAuth 2.0 user context (docs/contract.md, notes-2 section 1): the consent page, the token endpoint
// (authorization code with PKCE, refresh with rotation, confidential and public clients), revoke,
// and GET /2/users/me. Access tokens age on the sandbox clock; route-level scope checks live in
// server.ts (they read the contract's table), per-event ones in the activity module.
import crypto from 'node:crypto';
import type { SandboxApp } from '../app.js';
import { SandboxError, checkV2Input, ok, queryOf, type Reply, type SReq } from '../http.js';
import { userV2 } from '../user-profile.js';
import { randomToken, type OAuth2AccessToken, type OAuth2Client, type OAuth2Code } from '../state.js';
import {
  OAUTH2_ENDPOINTS as E,
  OAUTH2_ERRORS,
  OAUTH2_LIFETIMES as L,
  OFFLINE_SCOPE,
  oauth2ErrorOf,
} from '../../contract/oauth2.js';
import type { Endpoint } from '../../contract/endpoint.js';
import { validate } from '../../contract/params.js';
import { timingSafeEqualStr } from '../verify.js';
import { esc, isLoopbackCallback, page } from './oauth.js';

type TokenError = { status: number; error: string; error_description: string };

function fail(e: TokenError): SandboxError {
  const { status, ...body } = e;
  return new SandboxError({ status, body, headers: { 'cache-control': 'no-store' } });
}

/** Unknown client or unregistered redirect_uri: no redirect (it could go anywhere), a plain-text 400. */
function refuse(text: string): SandboxError {
  return new SandboxError({ status: 400, text, contentType: 'text/plain; charset=utf-8' });
}

function redirect(to: string, params: Record<string, string | undefined>): Reply {
  const u = new URL(to);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return { status: 302, headers: { location: u.toString(), 'cache-control': 'no-store' }, text: '' };
}

interface AuthorizeRequest {
  client: OAuth2Client;
  redirectUri: string;
  scopes: string[];
  state?: string;
  challenge: string;
  method: 'S256' | 'plain';
}

/**
 * The authorize parameters, from the query (GET) or the form (POST). Client and redirect URI
 * first, since every later error is reported by redirecting there (RFC 6749 section 4.1.2.1);
 * then the contract's rules (validate()).
 */
function readAuthorize(app: SandboxApp, e: Endpoint, given: Record<string, string>): AuthorizeRequest | Reply {
  const client = app.state.oauth2Clients.get(given.client_id ?? '');
  if (!client) throw refuse('Something went wrong: this client_id is not a known application.');
  const redirectUri = given.redirect_uri ?? '';
  if (!isLoopbackCallback(redirectUri) && !app.state.apps.get(client.appKey)!.callbacks.includes(redirectUri)) {
    throw refuse('Something went wrong: redirect_uri is not one of the callback URLs registered for this app.');
  }
  const state = given.state;
  const invalid = validate(e, { query: given, body: given });
  if (invalid) {
    const { error, error_description } = oauth2ErrorOf(invalid);
    return redirect(redirectUri, { error, error_description, state });
  }
  // Absent means plain (RFC 7636); older SDKs send "s256".
  const m = (given.code_challenge_method ?? 'plain').toLowerCase();
  return {
    client,
    redirectUri,
    scopes: [...new Set(given.scope!.split(' ').filter(Boolean))],
    state,
    challenge: given.code_challenge!,
    method: m === 's256' ? 'S256' : 'plain',
  };
}

/** The first value of each form field, as validate() reads a body. */
function formOf(req: SReq): Record<string, string> {
  const o: Record<string, string> = {};
  for (const [k, v] of req.form) if (!(k in o)) o[k] = v;
  return o;
}

const SCOPE_TEXT: Record<string, string> = {
  'tweet.read': 'See posts from your timeline, including protected posts',
  'users.read': 'See any account you can view, including protected accounts',
  'offline.access': 'Stay connected to your account until you revoke access',
  'dm.read': 'See your direct messages',
  'dm.write': 'Send and manage direct messages for you',
  'like.read': 'See posts you liked and who liked them',
  'follows.read': 'See who you follow and who follows you',
  'mute.read': 'See accounts you muted',
  'block.read': 'See accounts you blocked',
  'media.write': 'Upload media',
};

function consentPage(app: SandboxApp, a: AuthorizeRequest): Reply {
  const appRec = app.state.apps.get(a.client.appKey)!;
  const users = [...app.state.users.values()];
  const hidden: Array<[string, string]> = [
    ['client_id', a.client.clientId],
    ['redirect_uri', a.redirectUri],
    ['scope', a.scopes.join(' ')],
    ['state', a.state ?? ''],
    ['code_challenge', a.challenge],
    ['code_challenge_method', a.method],
    ['response_type', 'code'],
  ];
  return page(
    `Authorize ${appRec.name}`,
    `<h1><span id="app-name">${esc(appRec.name)}</span> wants to access your account</h1>
<p>It asks for these permissions (OAuth 2.0):</p>
<ul id="scopes">${a.scopes.map((s) => `<li data-scope="${esc(s)}"><code>${esc(s)}</code> ${esc(SCOPE_TEXT[s] ?? '')}</li>`).join('')}</ul>
<form method="post" action="${E.authorizeDecision.path}">
${hidden.map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v)}">`).join('\n')}
${users.map((u, i) => `<label class="user"><input type="radio" name="screen_name" value="${esc(u.screen_name)}"${i === 0 ? ' checked' : ''}> <span><strong>${esc(u.name)}</strong> @${esc(u.screen_name)}</span></label>`).join('\n')}
<div class="actions"><button id="allow" name="decision" value="allow" type="submit">Authorize app</button>
<button id="deny" name="decision" value="deny" type="submit">Cancel</button></div>
</form>`,
  );
}

/** Client authentication at the token and revoke endpoints: Basic for confidential clients, client_id for public ones. */
function authenticateClient(app: SandboxApp, req: SReq): OAuth2Client {
  const h = String(req.headers.authorization ?? '');
  const formValue = (k: string) => req.form.find(([n]) => n === k)?.[1];
  if (/^Basic\s/i.test(h)) {
    const dec = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8');
    const i = dec.indexOf(':');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    // RFC 6749 form-encodes id and secret first; the platform's docs do not: both are accepted.
    const c =
      i < 0
        ? undefined
        : (app.state.oauth2Clients.get(dec.slice(0, i)) ?? app.state.oauth2Clients.get(decode(dec.slice(0, i))));
    const secret = i < 0 ? '' : dec.slice(i + 1);
    if (
      !c ||
      c.type !== 'confidential' ||
      !(timingSafeEqualStr(c.secret!, secret) || timingSafeEqualStr(c.secret!, decode(secret)))
    )
      throw fail(OAUTH2_ERRORS.missingAuthHeader);
    return c;
  }
  // No header: only public clients, by client_id in the body; client_secret_post is refused.
  const c = app.state.oauth2Clients.get(formValue('client_id') ?? '');
  if (!c || c.type !== 'public' || formValue('client_secret') !== undefined)
    throw fail(OAUTH2_ERRORS.missingAuthHeader);
  return c;
}

function tokenReply(app: SandboxApp, client: OAuth2Client, userId: string, scopes: string[]): Reply {
  const now = app.clock.now();
  // Shaped like the platform's: base64url of random bytes and a ":time:1:1:at:1" style tail.
  const mint = (kind: string) => Buffer.from(`${randomToken(43)}:${now}:1:1:${kind}:1`).toString('base64url');
  const at: OAuth2AccessToken = {
    token: mint('at'),
    clientId: client.clientId,
    appKey: client.appKey,
    userId,
    scopes,
    expiresAt: now + L.accessTokenS * 1000,
    revoked: false,
  };
  app.state.oauth2Access.set(at.token, at);
  const body: Record<string, unknown> = {
    token_type: 'bearer',
    expires_in: L.accessTokenS,
    access_token: at.token,
    scope: scopes.join(' '),
  };
  if (scopes.includes(OFFLINE_SCOPE)) {
    const rt = mint('rt');
    app.state.oauth2Refresh.set(rt, {
      token: rt,
      clientId: client.clientId,
      userId,
      scopes,
      expiresAt: now + L.refreshTokenS * 1000,
      dead: false,
      access: at.token,
    });
    body.refresh_token = rt;
  }
  return { status: 200, body, headers: { 'cache-control': 'no-store' } };
}

function exchangeCode(app: SandboxApp, client: OAuth2Client, get: (k: string) => string | undefined): Reply {
  const code: OAuth2Code | undefined = app.state.oauth2Codes.get(get('code')!);
  if (!code || code.used || code.clientId !== client.clientId || app.clock.now() - code.createdAt > L.codeS * 1000)
    throw fail(OAUTH2_ERRORS.badCode);
  // Single use from the first attempt on: a wrong verifier cannot be retried against the same code.
  code.used = true;
  if (code.redirectUri !== get('redirect_uri')) throw fail(OAUTH2_ERRORS.badRedirect);
  const verifier = get('code_verifier')!;
  const expected =
    code.method === 'S256' ? crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url') : verifier;
  if (!timingSafeEqualStr(expected, code.challenge)) throw fail(OAUTH2_ERRORS.badVerifier);
  return tokenReply(app, client, code.userId, code.scopes);
}

function refresh(app: SandboxApp, client: OAuth2Client, get: (k: string) => string | undefined): Reply {
  const rt = app.state.oauth2Refresh.get(get('refresh_token')!);
  if (!rt || rt.dead || rt.clientId !== client.clientId || rt.expiresAt <= app.clock.now())
    throw fail(OAUTH2_ERRORS.badToken);
  // Rotation: the refresh token is spent, and the access token it was issued with retires too.
  rt.dead = true;
  const old = app.state.oauth2Access.get(rt.access);
  if (old) old.revoked = true;
  return tokenReply(app, client, rt.userId, rt.scopes);
}

/**
 * `user.fields`, `expansions` and `post.fields` (comma lists; a key given twice has its values
 * joined), checked by the contract (validate()); the user fields asked for.
 */
function userFields(req: SReq): string[] {
  const query: Record<string, string> = {};
  for (const name of new Set(req.query.keys())) query[name] = req.query.getAll(name).join(',');
  checkV2Input(E.me, { query });
  return (query['user.fields'] ?? '').split(',').filter(Boolean);
}

/** The contract's check of a token-endpoint form, answered in the platform's OAuth 2.0 shape. */
function checkOAuth2Input(e: Endpoint, req: SReq): void {
  const invalid = validate(e, { body: formOf(req) });
  if (invalid) throw fail(oauth2ErrorOf(invalid));
}

export function install(app: SandboxApp): void {
  const r = app.router;
  const { state } = app;

  r.serve(E.authorize, (req) => {
    const a = readAuthorize(app, E.authorize, queryOf(req));
    return 'status' in a ? a : consentPage(app, a);
  });

  r.serve(E.authorizeDecision, (req) => {
    const a = readAuthorize(app, E.authorizeDecision, formOf(req));
    if ('status' in a) return a;
    const decision = req.param('decision');
    if (decision === 'deny') return redirect(a.redirectUri, { error: 'access_denied', state: a.state });
    if (decision !== 'allow') return page('Invalid request', '<h1>Choose Authorize app or Cancel</h1>', 400);
    const user = state.userByName(req.param('screen_name') ?? '');
    if (!user)
      return page(
        'Invalid request',
        '<h1>No such account</h1><p>Go back and choose one of the sandbox accounts.</p>',
        400,
      );
    const code: OAuth2Code = {
      code: Buffer.from(`${randomToken(43)}:${app.clock.now()}:1:1:ac:1`).toString('base64url'),
      clientId: a.client.clientId,
      redirectUri: a.redirectUri,
      scopes: a.scopes,
      challenge: a.challenge,
      method: a.method,
      userId: user.id,
      createdAt: app.clock.now(),
      used: false,
    };
    for (const [k, old] of state.oauth2Codes)
      if (old.used || app.clock.now() - old.createdAt > L.codeS * 1000) state.oauth2Codes.delete(k);
    state.oauth2Codes.set(code.code, code);
    return redirect(a.redirectUri, { state: a.state, code: code.code });
  });

  r.serve(E.token, (req) => {
    const get = (k: string) => req.form.find(([n]) => n === k)?.[1];
    const client = authenticateClient(app, req);
    checkOAuth2Input(E.token, req);
    if (get('grant_type') === 'authorization_code') return exchangeCode(app, client, get);
    return refresh(app, client, get);
  });

  r.serve(E.revoke, (req) => {
    const get = (k: string) => req.form.find(([n]) => n === k)?.[1];
    const client = authenticateClient(app, req);
    checkOAuth2Input(E.revoke, req);
    const token = get('token')!;
    // Only the named token dies; unknown, foreign or dead tokens still answer revoked (RFC 7009 2.2).
    const at = state.oauth2Access.get(token);
    if (at && at.clientId === client.clientId) at.revoked = true;
    const rt = state.oauth2Refresh.get(token);
    if (rt && rt.clientId === client.clientId) rt.dead = true;
    return ok({ revoked: true });
  });

  // OAuth 1.0a user context here; OAuth 2.0 user tokens through the contract's scope table.
  r.serve(E.me, (req) => ok({ data: userV2(state.users.get(req.auth.userId!)!, userFields(req)) }));
}
