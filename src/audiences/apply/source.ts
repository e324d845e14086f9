// An audience's source as a file sync can read (twice: plan, then apply): a path as it is, or a
// command's standard output saved once to a private file. A command runs in the audiences
// file's folder through the shell, with a timeout; a non-zero exit, a signal or a timeout fails
// that audience (its output is never used: a half-written list would remove members).
//
// A command runs as the user, with everything the user can reach (the config folder, the
// parent's /proc/PID/environ, the code cache): no environment scrubbing makes a command from an
// untrusted audiences file safe, so apply runs none unless the user allowed it (trust.ts).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from '../../context.js';
import { UsageError, XctlError } from '../../core/errors.js';
import { ensurePrivateFolder } from '../../core/store-guard.js';
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
  ensurePrivateFolder(tmpDir);
  await runCommand(ctx, spec.source, path.join(tmpDir, outputName(spec)), spec.name);
  return path.join(tmpDir, outputName(spec));
}

/**
 * The output file's name: the full SHA-256 of account and name, so two audiences never share
 * one (a prefix of the name did, for names sharing their first 40 bytes: one audience received
 * the other's members).
 */
export function outputName(spec: Pick<AudienceSpec, 'account' | 'name'>): string {
  const key = crypto
    .createHash('sha256')
    .update(JSON.stringify([spec.account, spec.name]))
    .digest('hex');
  return `source-${key}.txt`;
}

/**
 * The command's environment: xctl's own, without any XCTL_* variable. This keeps the values out
 * of a careless `env` dump only; it is no boundary (the command can read them elsewhere).
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
  // Created here, never opened through a link or over a file someone else put there.
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  const fd = fs.openSync(outFile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
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
