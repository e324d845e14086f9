// The loopback receiver of `auth login`: the authorize page redirects the browser here with the
// verifier (or `denied`), and the browser gets a small page saying what happened.
import http from 'node:http';
import { boundAddress } from '../../contract/guards.js';
import { UsageError } from '../../core/errors.js';
import { parseRedirect, type RedirectOutcome } from '../../core/oauth2.js';

export type CallbackOutcome = { kind: 'verifier'; verifier: string } | { kind: 'denied' };

export interface CallbackServer {
  /** http://127.0.0.1:PORT/callback */
  url: string;
  /** Resolves on the first callback that carries the expected request token. */
  outcome: Promise<CallbackOutcome>;
  expect(requestToken: string): void;
  close(): Promise<void>;
}

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;background:#f5f8fa;color:#14171a;display:flex;justify-content:center;padding:60px 16px}
main{background:#fff;border-radius:16px;box-shadow:0 1px 4px rgba(0,0,0,.12);padding:28px;max-width:420px}h1{font-size:20px}</style>
</head><body><main><h1 id="result">${title}</h1><p>${text}</p></main></body></html>`;
}

/** Listens on 127.0.0.1 (never a public interface) on `port`, or a free one with 0. */
async function listen(server: http.Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE' || e.code === 'EACCES'
          ? new UsageError(
              `--callback-port ${port}: ${e.code === 'EADDRINUSE' ? 'the port is in use' : 'not allowed to listen there'}`,
              {
                flag: '--callback-port',
                hint: 'omit --callback-port to use a free port, or pick another one',
              },
            )
          : e,
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

type Reply = (status: number, title: string, text: string) => void;

/** A loopback server whose /callback requests go to `onCallback`; every other path is a 404 page. */
async function callbackServer(port: number, onCallback: (u: URL, reply: Reply) => void): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const reply: Reply = (status, title, text) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'close',
      });
      res.end(page(title, text));
    };
    if (u.pathname !== '/callback')
      return reply(404, 'Not found', 'This address only receives the sign-in callback of xctl.');
    onCallback(u, reply);
  });
  await listen(server, port);
  return server;
}

function closer(server: http.Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** The OAuth 1.0a callback: oauth_token and oauth_verifier, or `denied`. */
export async function startCallbackServer(port: number): Promise<CallbackServer> {
  let expected: string | undefined;
  let settle!: (o: CallbackOutcome) => void;
  const outcome = new Promise<CallbackOutcome>((resolve) => (settle = resolve));
  const server = await callbackServer(port, (u, reply) => {
    const token = u.searchParams.get('oauth_token') ?? u.searchParams.get('denied');
    // A callback for another sign-in (an old tab) must not complete this one.
    if (!expected || token !== expected) {
      return reply(
        400,
        'This sign-in link is not the current one',
        'Go back to the terminal and use the URL xctl printed last.',
      );
    }
    if (u.searchParams.has('denied')) {
      reply(200, 'Authorization cancelled', 'xctl was not given access. You can close this tab.');
      return settle({ kind: 'denied' });
    }
    const verifier = u.searchParams.get('oauth_verifier');
    if (!verifier)
      return reply(400, 'Missing verifier', 'The callback carried no oauth_verifier. Start again from the terminal.');
    reply(
      200,
      'You are signed in to xctl',
      'Authorization complete. You can close this tab and return to the terminal.',
    );
    settle({ kind: 'verifier', verifier });
  });
  const actual = boundAddress(server).port;
  return {
    url: `http://127.0.0.1:${actual}/callback`,
    outcome,
    expect(token) {
      expected = token;
    },
    close: closer(server),
  };
}

export interface OAuth2CallbackServer {
  /** http://127.0.0.1:PORT/callback: the redirect_uri of the login. */
  url: string;
  /** Resolves on the first callback that carries this login's state. */
  outcome: Promise<RedirectOutcome>;
  close(): Promise<void>;
}

/**
 * The OAuth 2.0 callback: `code` and `state`, or `error` and `state`. A callback with another
 * state (an old tab, a forged link) is answered and ignored: it cannot complete this login.
 */
export async function startOAuth2CallbackServer(port: number, state: string): Promise<OAuth2CallbackServer> {
  let settle!: (o: RedirectOutcome) => void;
  const outcome = new Promise<RedirectOutcome>((resolve) => (settle = resolve));
  let url = '';
  const server = await callbackServer(port, (u, reply) => {
    let o: RedirectOutcome;
    try {
      o = parseRedirect(new URL(u.pathname + u.search, url).toString(), state);
    } catch {
      return reply(
        400,
        'This sign-in link is not the current one',
        'Go back to the terminal and use the URL xctl printed last.',
      );
    }
    if (o.kind === 'denied')
      reply(200, 'Authorization cancelled', 'xctl was not given access. You can close this tab.');
    else
      reply(
        200,
        'You are signed in to xctl',
        'Authorization complete. You can close this tab and return to the terminal.',
      );
    settle(o);
  });
  url = `http://127.0.0.1:${boundAddress(server).port}/callback`;
  return { url, outcome, close: closer(server) };
}
