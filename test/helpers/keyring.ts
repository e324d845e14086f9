// A real Secret Service for the keychain tests: a private D-Bus session bus and Debian's
// gnome-keyring-daemon on it, unlocked with a throwaway password, its keyrings in a temporary
// folder. Started and stopped by the test (by their process ids); unavailable (with the reason)
// where the programs are not installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './cli.js';

export interface SecretService {
  /** What a CLI process needs to reach it. */
  env: Record<string, string>;
  /** Restarts the keyring daemon locked (its login keyring needs a password nobody types). */
  lock(): Promise<void>;
  stop(): Promise<void>;
}

const PROGRAMS = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon'];

/** Why no Secret Service can be started here, or undefined when it can. */
export function secretServiceMissing(): string | undefined {
  if (process.platform !== 'linux') return `the Secret Service tests run on Linux (this is ${process.platform})`;
  const missing = PROGRAMS.filter((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status !== 0);
  return missing.length
    ? `not installed: ${missing.join(', ')} (Debian: apt-get install gnome-keyring dbus-x11)`
    : undefined;
}

function nameOwned(env: Record<string, string>): boolean {
  const r = spawnSync(
    'dbus-send',
    [
      '--session',
      '--dest=org.freedesktop.DBus',
      '--print-reply',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      'string:org.freedesktop.secrets',
    ],
    { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 2_000 },
  );
  return /boolean true/.test(r.stdout ?? '');
}

async function until(what: string, fn: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function stopChild(c: ChildProcess | undefined): Promise<void> {
  if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => c.kill('SIGKILL'), 3_000);
    c.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    c.kill('SIGTERM');
  });
}

/** The accounts of xctl's keychain entries, asked from a child process on that bus. */
export function xctlAccounts(env: Record<string, string>): string[] {
  const script =
    "const k=require('@napi-rs/keyring');" +
    "process.stdout.write(JSON.stringify(k.findCredentials('xctl').map((c)=>c.account)))";
  const r = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 5_000,
  });
  return JSON.parse(r.stdout || '[]') as string[];
}

/** Starts the bus and an unlocked keyring daemon on it. */
export async function startSecretService(): Promise<SecretService> {
  const dir = tempDir('xctl-keyring-');
  const runtime = path.join(dir, 'run');
  fs.mkdirSync(runtime, { mode: 0o700 });
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', '--nopidfile'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    bus.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    bus.once('exit', (c) => reject(new Error(`dbus-daemon exited (${c})`)));
  });
  const env = {
    DBUS_SESSION_BUS_ADDRESS: address,
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_RUNTIME_DIR: runtime,
  };
  let daemon: ChildProcess | undefined;
  const startDaemon = async (unlock: boolean) => {
    const args = ['--foreground', '--components=secrets', ...(unlock ? ['--unlock'] : [])];
    daemon = spawn('gnome-keyring-daemon', args, {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    daemon.stdin!.end(unlock ? 'throwaway-test-password' : '');
    await until('gnome-keyring-daemon on the bus', () => nameOwned(env));
  };
  await startDaemon(true);
  return {
    env,
    async lock() {
      await stopChild(daemon);
      await until('the old daemon to leave the bus', () => !nameOwned(env));
      await startDaemon(false);
    },
    async stop() {
      await stopChild(daemon);
      await stopChild(bus);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
