// An audiences file with `command` sources is code: its commands run as the user, who can read
// the config file, the parent's /proc/PID/environ and every file of theirs, and can write the
// code cache the next xctl runs. So apply runs them only when the user says so: for one run
// (--allow-commands), or for one exact text of the file (--trust records its SHA-256 in a list
// kept in the config folder, outside the repository the file comes from). A --plan of a file
// that changed since it was trusted runs nothing, whatever the flags: a pull request editing the
// file is planned by CI, and the plan must not run what the pull request wrote.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../../core/config.js';
import { UsageError, errnoCode } from '../../core/errors.js';
import { withFileLockSync } from '../../core/file-lock.js';
import type { AudienceSpec } from './schema.js';

export const TRUST_FILE = 'trusted-audiences-files.json';

interface Trusted {
  /** SHA-256 (hex) of the file's whole text. */
  sha256: string;
  /** Where it was when trusted (to say "changed since trusted"). */
  path: string;
  trusted_at: string;
}

interface TrustList {
  xctl_trusted_files: 1;
  files: Trusted[];
}

export function textHash(text: string): string {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The list in `configDir` (none yet: empty); refused when anyone but the user could have written it. */
export function readTrustList(configDir: string | undefined): Trusted[] {
  if (configDir === undefined) return [];
  const file = path.join(configDir, TRUST_FILE);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw unusable(file, errnoCode(e) === 'ELOOP' ? 'it is a symbolic link' : String(errnoCode(e) ?? e));
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile()) throw unusable(file, 'it is not a regular file');
    if (uid !== undefined && st.uid !== uid) throw unusable(file, `it belongs to another user (uid ${st.uid})`);
    if (st.mode & 0o022) throw unusable(file, `others can write to it (mode ${(st.mode & 0o777).toString(8)})`);
    const data = JSON.parse(fs.readFileSync(fd, 'utf8')) as Partial<TrustList>;
    if (data.xctl_trusted_files !== 1 || !Array.isArray(data.files)) throw unusable(file, 'it is not a trust list');
    return data.files.filter((f) => typeof f?.sha256 === 'string' && typeof f.path === 'string');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw unusable(file, `it is not valid JSON`);
  } finally {
    fs.closeSync(fd);
  }
}

function unusable(file: string, why: string): UsageError {
  return new UsageError(`refusing to use the list of trusted audiences files ${file}: ${why}`, {
    flag: '--trust',
    hint: `remove it, then trust your files again with \`xctl audiences apply -f FILE --trust\``,
  });
}

/** Adds the file's text to the list (one entry per path: trusting a new text replaces the old). */
export function trustFile(configDir: string, file: string, sha256: string, now: Date): void {
  const list = path.join(configDir, TRUST_FILE);
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  withFileLockSync(`${list}.lock`, () => {
    const files = readTrustList(configDir).filter((f) => f.path !== file);
    files.push({ sha256, path: file, trusted_at: now.toISOString() });
    writeAtomic(list, JSON.stringify({ xctl_trusted_files: 1, files } satisfies TrustList, null, 2) + '\n');
  });
}

export interface CommandGate {
  /** The audiences file (absolute) and the SHA-256 of the text that was parsed. */
  file: string;
  sha256: string;
  plan: boolean;
  allowCommands: boolean;
  trusted: Trusted[];
}

/** Throws (exit 2, nothing run or sent) unless the file's commands may run in this run. */
export function checkCommands(specs: AudienceSpec[], g: CommandGate): void {
  const commands = specs.flatMap((s) => ('command' in s.source ? [`"${s.name}": ${s.source.command}`] : []));
  if (!commands.length || g.trusted.some((t) => t.sha256 === g.sha256)) return;
  const listed = commands.slice(0, 3).join('; ') + (commands.length > 3 ? `; and ${commands.length - 3} more` : '');
  const before = g.trusted.find((t) => t.path === g.file);
  if (g.plan && before)
    throw new UsageError(
      `${g.file} changed since you trusted it, and --plan never runs the commands of a changed file (${listed}): nothing was run`,
      {
        flag: '--trust',
        hint: `review the change (a pull request can put any command there), then \`xctl audiences apply -f ${g.file} --trust\``,
      },
    );
  if (g.allowCommands) return;
  throw new UsageError(
    `${g.file} runs commands (${listed}); they would run as you, with your files and credentials in reach: nothing was run`,
    {
      flag: '--allow-commands',
      hint: `read them, then pass --allow-commands for this run, or trust this exact file with \`xctl audiences apply -f ${g.file} --trust\``,
    },
  );
}
