// Credential flows: log in (callback and PIN), log out, the app-only bearer, and importing twurl's
// rc file. The demo plays the browser over HTTP: it opens the printed URL and clicks Allow.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What a person does in the browser: read the authorize page, submit Allow as `screenName`. */
async function approve(url, screenName) {
  const html = await (await fetch(url)).text();
  const token = /name="oauth_token" value="([^"]+)"/.exec(html)[1];
  const res = await fetch(new URL('/oauth/authorize', url), {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ oauth_token: token, decision: 'allow', screen_name: screenName }),
  });
  const body = await res.text();
  if (res.status === 302) await fetch(res.headers.get('location')); // back to xctl's loopback callback
  return /id="pin">(\d+)</.exec(body)?.[1];
}

/**
 * Runs `xctl auth login ...` and, once it prints a URL matching `urlRe`, plays the browser with
 * `approveUrl(url)`; a PIN it returns is piped to xctl. Shared with the OAuth 2.0 step.
 */
export function loginPlayingBrowser(d, args, urlRe, approveUrl, what) {
  console.log(`$ xctl ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(d.root, 'bin/xctl.js'), ...args], {
      env: d.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let seen = false;
    child.stdout.on('data', (x) => process.stdout.write(x));
    child.stderr.on('data', async (x) => {
      process.stdout.write(String(x));
      stderr += x;
      const m = urlRe.exec(stderr);
      if (m && !seen) {
        seen = true;
        d.note(`(the demo plays the browser: ${what})`);
        const pin = await approveUrl(m[1]).catch(reject);
        if (pin) {
          d.note(`(the page shows PIN ${pin}; the demo pipes it to xctl)`);
          child.stdin.end(`${pin}\n`);
        }
      }
    });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`xctl ${args.join(' ')} exited ${code}`))));
  });
}

/** Runs `xctl auth login ...` and approves the URL it prints, as a browser would. */
function login(d, args, screenName) {
  return loginPlayingBrowser(
    d,
    args,
    /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/,
    (url) => approve(url, screenName),
    `opens that URL and clicks "Authorize app" as @${screenName}`,
  );
}

export default async function (d) {
  const s = d.sandbox.seed;
  d.section(
    'Logging in as a user',
    'Three-legged OAuth 1.0a: xctl listens on 127.0.0.1 for the callback, prints the authorize URL and opens a browser (not here: --no-browser).',
  );
  await login(d, ['auth', 'login', '--no-browser', '--access-level', 'read'], 'sandbox_alice');
  await d.xctl(['request', '/1.1/account/verify_credentials.json', '--fields', 'id_str,screen_name']);
  d.note('logout revokes the token at the service, then forgets it:');
  const token = (await d.xctl(['auth', 'token'], { show: false })).stdout.trim();
  const secret = (await d.xctl(['auth', 'token', '--secret'], { show: false })).stdout.trim();
  await d.xctl(['auth', 'logout']);
  d.note('the old token now fails with 401 code 89 (exit 3):');
  await d.xctl(['request', '/1.1/account/verify_credentials.json'], {
    allowFail: true,
    extraEnv: { XCTL_ACCESS_TOKEN: token, XCTL_ACCESS_TOKEN_SECRET: secret },
  });

  d.section(
    'PIN mode',
    'For machines without a browser: --pin uses the out-of-band flow; the PIN is typed, or piped on stdin.',
  );
  await login(d, ['auth', 'login', '--pin', '--no-browser', '--screen-name', s.screen_name], s.screen_name);
  await d.xctl(['auth', 'status']);

  d.section('App-only bearer', 'One bearer per app: obtained once, cached in the profile, revoked by the app owner.');
  await d.xctl(['auth', 'app-token']); // obtained and cached; shown masked
  const first = (await d.xctl(['auth', 'token', '--type', 'app'], { show: false })).stdout.trim();
  d.note(`xctl auth token --type app   -> ${first.slice(0, 8)}… (the one command that prints a secret)`);
  await d.xctl(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app']);
  await d.xctl(['auth', 'app-token', '--invalidate']);
  await d.xctl(['auth', 'app-token']);
  const second = (await d.xctl(['auth', 'token', '--type', 'app'], { show: false })).stdout.trim();
  d.note(`xctl auth token --type app   -> ${second.slice(0, 8)}… (a new one: ${second !== first})`);

  d.section(
    'Importing twurl profiles',
    'Profiles and bearer tokens from ~/.twurlrc, the file the official ads SDKs read.',
  );
  const dir = fs.mkdtempSync(path.join(d.configDir, 'twurl-'));
  const rc = path.join(dir, '.twurlrc');
  const fill = (t) =>
    t
      .replaceAll('{{API_KEY}}', s.api_key)
      .replaceAll('{{API_SECRET}}', s.api_secret)
      .replaceAll('{{ACCESS_TOKEN}}', s.access_token)
      .replaceAll('{{ACCESS_TOKEN_SECRET}}', s.access_token_secret)
      .replaceAll('{{BEARER}}', second);
  fs.writeFileSync(rc, fill(fs.readFileSync(path.join(d.root, 'test/fixtures/twurlrc.yml'), 'utf8')), { mode: 0o600 });
  const other = { XCTL_CONFIG_DIR: path.join(dir, 'store') }; // a separate store: the tour's profile stays as it is
  await d.xctl(['auth', 'import', '--twurlrc', rc], { extraEnv: other });
  await d.xctl(['auth', 'status'], { extraEnv: other });
}
