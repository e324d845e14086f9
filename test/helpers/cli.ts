// E2E helpers: a real sandbox on loopback (port 0) and the real CLI process (bin/xctl.js) against it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import type { SandboxOptions } from '../../src/sandbox/app.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/xctl.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string | Buffer;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  cwd?: string;
}

/** A fresh, empty config dir; removed by the caller's cleanup. */
export function tempDir(prefix = 'xctl-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Runs `node bin/xctl.js ...args` with a clean environment (no inherited XCTL_* variables). */
export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) env[k] = v;
  env.NO_COLOR = '1';
  // The developer's own keychain stays out of the tests: only a test that starts a Secret Service passes one.
  delete env.DBUS_SESSION_BUS_ADDRESS;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env,
      cwd: opts.cwd ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

export interface TestSandbox {
  sb: Sandbox;
  /** Environment pointing the CLI at the sandbox with the seeded owner credentials. */
  env: Record<string, string>;
  configDir: string;
  run(args: string[], opts?: RunOptions): Promise<RunResult>;
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** A file's sandbox: started before its tests, closed after them, with the dirs to remove then. */
export interface SandboxFixture extends TestSandbox {
  /** Folders (tempDir()) removed after the file's tests. */
  dirs: string[];
}

/**
 * Starts a sandbox for the tests of one file (beforeAll) and closes it after them (afterAll),
 * removing `dirs`. The fixture reads through to the running sandbox, so it can be a file-level const.
 */
export function useTestSandbox(opts: SandboxOptions = {}): SandboxFixture {
  let current: TestSandbox | undefined;
  const dirs: string[] = [];
  beforeAll(async () => {
    current = await startTestSandbox(opts);
  });
  afterAll(async () => {
    await current?.close();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const live = (): TestSandbox => {
    if (!current) throw new Error('the sandbox starts before the tests: use it inside a test or a hook');
    return current;
  };
  return {
    dirs,
    get sb() {
      return live().sb;
    },
    get env() {
      return live().env;
    },
    get configDir() {
      return live().configDir;
    },
    run: (args, o) => live().run(args, o),
    admin: <T = unknown>(method: string, p: string, body?: unknown) => live().admin<T>(method, p, body),
    close: () => live().close(),
  };
}

/** The sandbox's admin key (its app key and secret as HTTP Basic), as `xctl sandbox ...` sends it. */
export function adminKey(s: Pick<Sandbox['seed'], 'api_key' | 'api_secret'>): { authorization: string } {
  return { authorization: `Basic ${Buffer.from(`${s.api_key}:${s.api_secret}`).toString('base64')}` };
}

/** The environment that points the CLI at a sandbox with its seeded owner credentials. */
export function sandboxEnv(s: Sandbox['seed'], configDir: string): Record<string, string> {
  return { XCTL_CONFIG_DIR: configDir, ...sandboxCredentials(s) };
}

/** The sandbox's base URL and seeded owner credentials as XCTL_* variables (no config folder). */
export function sandboxCredentials(s: Sandbox['seed']): Record<string, string> {
  return {
    XCTL_BASE_URL: s.base_url,
    XCTL_API_KEY: s.api_key,
    XCTL_API_SECRET: s.api_secret,
    XCTL_ACCESS_TOKEN: s.access_token,
    XCTL_ACCESS_TOKEN_SECRET: s.access_token_secret,
    XCTL_ACCOUNT_ID: s.account_id,
  };
}

export async function startTestSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const sb = await startSandbox(opts);
  const configDir = tempDir();
  const s = sb.seed;
  // Short retry waits: a test that means to see real back-off builds its env with sandboxEnv().
  const env = { ...sandboxEnv(s, configDir), XCTL_RETRY_BASE_MS: '20' };
  return {
    sb,
    env,
    configDir,
    run: (args, o = {}) => runCli(args, { ...o, env: { ...env, ...(o.env ?? {}) } }),
    async admin(method, p, body) {
      const res = await fetch(s.base_url + p, {
        method,
        headers: { ...adminKey(s), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return (await res.json()) as never;
    },
    async close() {
      await sb.close();
      fs.rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/**
 * A command line as argv: xctl`ads campaigns get ${id} --with-deleted`. The literal text splits on
 * white space; each `${value}` is one argument whatever it holds (a list, one argument per item).
 * A value glued to literal text (`--x=${v}`) throws: write it as its own argument.
 */
export function xctl(parts: TemplateStringsArray, ...values: Array<string | number | readonly string[]>): string[] {
  const out: string[] = [];
  parts.raw.forEach((raw, i) => {
    const text = parts[i]!;
    const glued = (i > 0 && /^\S/.test(text)) || (i < values.length && /\S$/.test(text));
    if (glued) throw new Error(`xctl\`${parts.raw.join('${…}')}\`: a value glued to text near "${raw}"`);
    out.push(...text.split(/\s+/).filter(Boolean));
    if (i < values.length) {
      const v = values[i]!;
      if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
      else out.push(...v);
    }
  });
  return out;
}
