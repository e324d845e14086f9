// An audience's source as a file sync can read (twice: plan, then apply): a path as it is, or a
// command's standard output saved once to a private file. A command runs in the audiences
// file's folder through the shell, with a timeout; a non-zero exit, a signal or a timeout fails
// that audience (its output is never used: a half-written list would remove members).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from '../../context.js';
import { UsageError, XctlError } from '../../core/errors.js';
import type { AudienceSpec } from './schema.js';

/** The file sync reads for this audience (a command's output lands in `tmpDir`). */
export async function sourceFile(ctx: Context, spec: AudienceSpec, tmpDir: string): Promise<string> {
  if ('file' in spec.source) {
    if (!fs.existsSync(spec.source.file))
      throw new UsageError(`audience "${spec.name}": source ${spec.source.file} does not exist`, {
        flag: '-f',
      });
    return spec.source.file;
  }
  fs.mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
  const out = path.join(
    tmpDir,
    `source-${process.pid}-${Buffer.from(`${spec.account}/${spec.name}`).toString('hex').slice(0, 80)}.txt`,
  );
  await runCommand(ctx, spec.source, out, spec.name);
  return out;
}

/**
 * The command's environment: xctl's own, without any XCTL_* variable. The file may come from a
 * pull request whose plan CI runs: its commands must not be handed the API credentials.
 */
export function commandEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !k.startsWith('XCTL_')) out[k] = v;
  return out;
}

interface CommandSource {
  command: string;
  timeoutMs: number;
  cwd: string;
}

function runCommand(ctx: Context, src: CommandSource, outFile: string, name: string): Promise<void> {
  const fd = fs.openSync(outFile, 'w', 0o600);
  return new Promise<void>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', src.command], {
      cwd: src.cwd,
      env: commandEnv(ctx.env),
      stdio: ['ignore', fd, 'pipe'],
      detached: true,
    });
    let stderr = '';
    let why: string | undefined;
    const kill = (reason: string) => {
      why ??= reason;
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the whole group: a pipeline's children too
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill(`ran longer than its timeout (${src.timeoutMs / 1000} s)`), src.timeoutMs);
    const onAbort = () => kill('interrupted');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    child.stderr!.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-2000);
    });
    const done = (err?: Error) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      fs.closeSync(fd);
      if (err) {
        fs.rmSync(outFile, { force: true });
        reject(err);
      } else resolve();
    };
    child.on('error', (e) => done(new XctlError(`audience "${name}": cannot run its command: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (why === undefined && code === 0) return done();
      const last = stderr.trim().split('\n').slice(-3).join(' | ');
      const how = why ?? (signal ? `was killed by ${signal}` : `exited with code ${code}`);
      done(
        new XctlError(
          `audience "${name}": its command ${how}; its output is not used${last ? ` (stderr: ${last})` : ''}`,
          { hint: `the command: ${src.command}` },
        ),
      );
    });
  });
}
