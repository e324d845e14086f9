// A CLI process the test talks to while it runs: wait for a line on stderr, write stdin later.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BIN, ROOT, type RunResult } from './cli.js';

export interface LiveCli {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the first match of `re` in stderr (rejects when the process ends first). */
  waitStderr(re: RegExp): Promise<RegExpMatchArray>;
  done: Promise<RunResult>;
}

/** Spawns `node bin/xctl.js ...args` with only `env` plus PATH/HOME (no inherited XCTL_*), stdin left open. */
export function spawnCli(args: string[], env: Record<string, string | undefined>, timeoutMs = 20_000): LiveCli {
  const clean: Record<string, string> = { NO_COLOR: '1' };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) clean[k] = v;
  delete clean.DBUS_SESSION_BUS_ADDRESS; // no keychain unless the test passes one
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  const child = spawn(process.execPath, [BIN, ...args], { env: clean, cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ re: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = stderr.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => {
    stderr += d;
    check();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<RunResult>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      for (const w of waiters.splice(0))
        w.reject(new Error(`xctl ended (exit ${code}) before stderr matched ${w.re}\n${stderr}`));
      resolve({ code, stdout, stderr });
    }),
  );
  return {
    child,
    done,
    waitStderr: (re) =>
      new Promise((resolve, reject) => {
        waiters.push({ re, resolve, reject });
        check();
      }),
  };
}

export const AUTHORIZE_URL = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/;

/** The OAuth 2.0 consent page URL `auth login --oauth2` prints against a sandbox. */
export const OAUTH2_AUTHORIZE_URL = /(http:\/\/127\.0\.0\.1:\d+\/i\/oauth2\/authorize\?\S+)/;
