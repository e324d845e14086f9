// OAuth 2.0 user context: PKCE login on the consent page, a v2 call, a scope the token lacks, the
// access token expiring and being refreshed (rotated) without the user noticing, logout revoking.
import { loginPlayingBrowser } from './11-auth-flows.js';

/** What a person does in the browser: read the consent page, submit its form with Allow. */
async function approve(url, screenName) {
  const html = await (await fetch(url)).text();
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(m[1], m[2].replaceAll('&amp;', '&'));
  form.set('screen_name', screenName);
  form.set('decision', 'allow');
  const res = await fetch(new URL('/i/oauth2/authorize', url), { method: 'POST', redirect: 'manual', body: form });
  await fetch(res.headers.get('location')); // back to xctl's loopback callback
}

function login(d, args, screenName) {
  const what = `the consent page lists the scopes; it clicks "Authorize app" as @${screenName}`;
  return loginPlayingBrowser(
    d,
    args,
    /(http:\/\/127\.0\.0\.1:\d+\/i\/oauth2\/authorize\?\S+)/,
    (url) => approve(url, screenName),
    what,
  );
}

export default async function (d) {
  const s = d.sandbox.seed;
  d.section(
    'OAuth 2.0 user context',
    "Authorization code with PKCE: the app's OAuth 2.0 client, a consent page with scopes, tokens that expire in 2 hours and refresh themselves.",
  );
  await d.xctl(['auth', 'set', '--client-id', s.client_id, '--client-secret', '-'], { input: `${s.client_secret}\n` });
  await login(
    d,
    [
      'auth',
      'login',
      '--oauth2',
      '--no-browser',
      '--callback-port',
      '0',
      '--scopes',
      'tweet.read users.read dm.read offline.access',
    ],
    'sandbox_bob',
  );
  await d.xctl(['request', '/2/users/me', '--auth', 'oauth2']);
  await d.xctl([
    'activity',
    'subscriptions',
    'create',
    '--event',
    'dm.received',
    '--user-id',
    '6253282',
    '--auth',
    'oauth2',
  ]);
  d.note('a scope the token was not granted: the platform answers a bare 403, the hint names the scope:');
  await d.xctl(['activity', 'subscriptions', 'list', '--auth', 'oauth2'], { allowFail: true });

  d.note('two hours pass on the sandbox clock; the next call refreshes the token first (rotating the refresh token):');
  await fetch(`${s.base_url}/_sandbox/clock`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${s.api_key}:${s.api_secret}`).toString('base64')}`,
    },
    body: JSON.stringify({ advance: '121m' }),
  });
  const before = (await d.xctl(['auth', 'token', '--type', 'oauth2'], { show: false })).stdout.trim();
  await d.xctl(['request', '/2/users/me', '--auth', 'oauth2', '--fields', 'id,username']);
  const after = (await d.xctl(['auth', 'token', '--type', 'oauth2'], { show: false })).stdout.trim();
  d.note(`access token before ${before.slice(0, 6)}…, after ${after.slice(0, 6)}… (refreshed: ${before !== after})`);
  await d.xctl(['auth', 'status']);
  await d.xctl(['auth', 'logout', '--oauth2']);
  d.note('the token is gone (exit 3):');
  await d.xctl(['request', '/2/users/me', '--auth', 'oauth2'], { allowFail: true });
}
