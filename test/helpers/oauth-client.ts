// Plain HTTP clients for the credential flows: a signed fetch (the client's own signer) and a
// "browser" that reads the sandbox's authorize page and submits Allow or Deny over HTTP.
import { oauth1Header, basicHeader } from '../../src/core/oauth1.js';

export interface Keys {
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
}

export interface Answer {
  status: number;
  text: string;
  headers: Headers;
  /** JSON body, or the pairs of a form-encoded one. */
  data: Record<string, unknown>;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let data: Record<string, unknown> = {};
  if (/json/.test(res.headers.get('content-type') ?? '')) data = JSON.parse(text);
  else if (/x-www-form-urlencoded/.test(res.headers.get('content-type') ?? ''))
    data = Object.fromEntries(new URLSearchParams(text));
  return { status: res.status, text, headers: res.headers, data };
}

export interface SignedInit {
  form?: Record<string, string>;
  extra?: Record<string, string>;
  nonce?: string;
  timestamp?: number;
  /** Replaces the computed Authorization header (replays, tampering). */
  authorization?: string;
}

/** An OAuth 1.0a signed request; returns the answer and the header that was sent. */
export async function signedFetch(
  keys: Keys,
  method: string,
  url: string,
  init: SignedInit = {},
): Promise<Answer & { authorization: string }> {
  const form = Object.entries(init.form ?? {});
  const authorization =
    init.authorization ??
    oauth1Header(keys, { method, url, form, extra: init.extra, nonce: init.nonce, timestamp: init.timestamp });
  const res = await fetch(url, {
    method,
    headers: { authorization, ...(form.length ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    body: form.length ? new URLSearchParams(form).toString() : undefined,
  });
  return { ...(await answer(res)), authorization };
}

export async function basicFetch(key: string, secret: string, url: string, body?: string): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: basicHeader(key, secret),
      'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
    },
    body,
  });
  return answer(res);
}

export async function bearerFetch(bearer: string, url: string, method = 'GET'): Promise<Answer> {
  return answer(await fetch(url, { method, headers: { authorization: `Bearer ${bearer}` } }));
}

export interface PageResult {
  status: number;
  html: string;
  /** The redirect target (the app's callback) when the sandbox answered 302. */
  location?: string;
  cookie?: string;
  pin?: string;
}

/** Plays the browser: GET the authorize URL, then POST the form with the chosen decision. */
export async function decideOnPage(
  authorizeUrl: string,
  decision: 'allow' | 'deny',
  opts: { screenName?: string; password?: string; cookie?: string } = {},
): Promise<PageResult> {
  const get = await fetch(authorizeUrl, { redirect: 'manual', headers: opts.cookie ? { cookie: opts.cookie } : {} });
  const html = await get.text();
  if (get.status === 302) return { status: 302, html, location: get.headers.get('location') ?? undefined };
  if (get.status !== 200) return { status: get.status, html };
  const token = /name="oauth_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const checked =
    /name="screen_name" value="([^"]+)" checked/.exec(html)?.[1] ??
    /id="username" name="screen_name" value="([^"]*)"/.exec(html)?.[1];
  const form = new URLSearchParams({ oauth_token: token, decision, screen_name: opts.screenName ?? checked ?? '' });
  if (/name="force_login"/.test(html)) {
    form.set('force_login', 'true');
    form.set('password', opts.password ?? 'any password');
  }
  const action = new URL('/oauth/authorize', authorizeUrl).toString();
  const post = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const body = await post.text();
  return {
    status: post.status,
    html: body,
    location: post.headers.get('location') ?? undefined,
    cookie: post.headers.get('set-cookie')?.split(';')[0],
    pin: /id="pin">(\d+)</.exec(body)?.[1],
  };
}

/**
 * Plays the browser on the OAuth 2.0 consent page: GET it, then POST its form (the hidden inputs
 * carry the request) with a decision and an account. Returns the 302's target (the redirect_uri).
 */
export async function decideOnOAuth2Page(
  authorizeUrl: string,
  decision: 'allow' | 'deny',
  screenName = 'sandbox_alice',
): Promise<PageResult> {
  const get = await fetch(authorizeUrl, { redirect: 'manual' });
  const html = await get.text();
  if (get.status !== 200) return { status: get.status, html, location: get.headers.get('location') ?? undefined };
  const unescape = (v: string) =>
    v
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(m[1]!, unescape(m[2]!));
  form.set('screen_name', screenName);
  form.set('decision', decision);
  const post = await fetch(new URL('/i/oauth2/authorize', authorizeUrl), {
    method: 'POST',
    redirect: 'manual',
    body: form,
  });
  return { status: post.status, html: await post.text(), location: post.headers.get('location') ?? undefined };
}
