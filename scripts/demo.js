#!/usr/bin/env node
// `npm run demo`: starts the embedded sandbox in-process, points the real CLI at it, and walks
// through every capability, printing each command before its output. Steps live in scripts/demo/.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/sandbox/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/xctl.js');
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const c = (n, s) => (color ? `\u001b[${n}m${s}\u001b[0m` : s);

const sb = await startSandbox({ clock: 'real' });
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-demo-'));
const env = {
  ...process.env,
  XCTL_CONFIG_DIR: configDir,
  XCTL_BASE_URL: sb.baseUrl,
  XCTL_OUTPUT: 'table',
  NO_COLOR: color ? '' : '1',
};
for (const k of Object.keys(env))
  if (k.startsWith('XCTL_') && !['XCTL_CONFIG_DIR', 'XCTL_BASE_URL', 'XCTL_OUTPUT'].includes(k)) delete env[k];

const demo = {
  sandbox: sb,
  env,
  configDir,
  root,
  section(title, text) {
    console.log(`\n${c('1;36', '== ' + title + ' ==')}`);
    if (text) console.log(c('2', text));
  },
  note(text) {
    console.log(c('2', `# ${text}`));
  },
  /** Runs the real CLI, echoing the command; returns {code, stdout, stderr}. */
  xctl(args, { input, show = true, allowFail = false, extraEnv = {} } = {}) {
    if (show) console.log(`${c('33', '$')} xctl ${args.map((a) => (/[\s"'$&|<>*]/.test(a) ? `'${a}'` : a)).join(' ')}`);
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args], {
        env: { ...env, ...extraEnv },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
        if (show) process.stdout.write(d);
      });
      child.stderr.on('data', (d) => {
        stderr += d;
        if (show) process.stdout.write(c('2', String(d)));
      });
      child.on('close', (code) => {
        if (code !== 0 && !allowFail) reject(new Error(`xctl ${args.join(' ')} exited ${code}\n${stderr}`));
        else resolve({ code, stdout, stderr });
      });
      child.stdin.end(input ?? '');
    });
  },
};

/** Runs the CLI on a pseudo-terminal (util-linux `script`), so progress bars show as a user sees them. */
demo.xctlTTY = async function (args, opts = {}) {
  const { spawnSync } = await import('node:child_process');
  if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0) return demo.xctl(args, opts);
  const quoted = [process.execPath, bin, ...args].map((a) => `'${String(a).replace(/'/g, `'\\''`)}'`).join(' ');
  console.log(`${c('33', '$')} xctl ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `stty cols 100 2>/dev/null; ${quoted}`, '/dev/null'], {
      env: { ...env, ...(opts.extraEnv ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('close', (code) =>
      code !== 0 && !opts.allowFail
        ? reject(new Error(`xctl ${args.join(' ')} exited ${code}`))
        : resolve({ code, stdout: out, stderr: '' }),
    );
    child.stdin.end();
  });
};

const started = Date.now();
const steps = fs
  .readdirSync(path.join(root, 'scripts/demo'))
  .filter((f) => f.endsWith('.js'))
  .sort();
try {
  for (const f of steps) {
    const mod = await import(path.join(root, 'scripts/demo', f));
    await mod.default(demo);
  }
  console.log(
    `\n${c('1;32', `demo finished in ${((Date.now() - started) / 1000).toFixed(1)} s`)} — see README.md for every command.`,
  );
} catch (e) {
  console.error(`\ndemo failed: ${e.message}`);
  process.exitCode = 1;
} finally {
  await sb.close();
  fs.rmSync(configDir, { recursive: true, force: true });
}
