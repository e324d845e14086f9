// `xctl audiences hash [file|-]`: normalize and hash exactly as upload does, and print the
// digests (no credentials, no network): to check a file before sending it, or to match
// digests elsewhere.
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import type { IdType } from '../../contract/audience-users.js';
import { shellWord } from '../../core/output.js';
import { declare } from '../define.js';
import { inputOptions, parseInputFlags, refuseBinary, type InputFlags } from './input-flags.js';

export interface HashFlags extends InputFlags {
  explain?: boolean;
  rejects?: string;
  /** --value: single values to hash (repeatable), instead of a file. */
  value?: string[];
}

export interface HashCommandOptions extends HashFlags {
  file: string;
}

/** `xctl audiences hash [file]` (no network) */
export function register(audiences: Command, runF = audiencesHash): void {
  declare(audiences, {
    name: 'hash',
    description:
      'print the SHA-256 digests upload would send, one per line (csv with one column per type for several columns); no network (file "-" or none reads stdin)',
    arguments: [['[file]', 'csv, tsv, plain lines or jsonl (default: stdin)']],
    options: [
      ...inputOptions(),
      ['--explain', 'one line per value: the input, its normalized form, and the digest or the reason it is rejected'],
      ['--rejects <file>', 'write rejected rows (line, column, reason) as csv'],
      {
        flags: '--value <value>',
        description: 'hash this value instead of a file (repeatable); --type, or an email',
        repeatable: true,
      },
    ],
    run: (ctx, flags, [file]) => runF(ctx, { ...flags, file: file ?? '-' }),
  });
}

export async function audiencesHash(ctx: Context, o: HashCommandOptions): Promise<void> {
  const { columns, defaultCountry } = await parseInputFlags(o);
  if (o.value?.length) return hashValues(ctx, o, columns.type, defaultCountry);
  if (o.file === '-' && ctx.io.isStdinTTY)
    throw new UsageError('give a file, or pipe the input on stdin, or hash one value with --value', { flag: '<file>' });
  if (o.file !== '-' && !fs.existsSync(o.file)) {
    // `audiences hash 'Ada@x.com'`: a value where a file goes.
    throw new UsageError(`<file>: ${o.file} does not exist`, {
      flag: '<file>',
      hint: `to hash a value, give it with --value: xctl audiences hash --value ${shellWord(o.file)}${o.type ? ` --type ${o.type}` : ''}`,
    });
  }
  await refuseBinary(o.file);
  const { runHash } = await import('../../audiences/hash.js');
  const s = await runHash(ctx, {
    input: o.file,
    format: o.format as never,
    columns,
    hashed: !!o.hashed,
    defaultCountry,
    explain: !!o.explain,
    rejects: o.rejects,
    lenientQuotes: !!o.lenientQuotes,
  });
  if (s.read > 0 && s.valid === 0 && !o.explain) {
    throw new UsageError(`none of the ${s.read} records could be used: every one was rejected`, {
      hint: `${o.rejects ? `reasons are in ${o.rejects}; ` : 'see why with --explain; '}check --type / --column${o.hashed ? '' : ', --hashed'} and --default-country`,
    });
  }
}

/** --value: each value prepared exactly as upload does; its digest printed, one a line. */
async function hashValues(
  ctx: Context,
  o: HashCommandOptions,
  type: IdType | undefined,
  defaultCountry?: string,
): Promise<void> {
  if (o.file !== '-')
    throw new UsageError('--value hashes the values given: give no file with it', { flag: '--value' });
  if (o.column?.length || o.explain || o.rejects !== undefined)
    throw new UsageError('--value takes --type (and --hashed, --default-country) only', { flag: '--value' });
  const { EMAIL_RE, prepare } = await import('../../audiences/normalize.js');
  const out: string[] = [];
  for (const v of o.value ?? []) {
    const t = type ?? (EMAIL_RE.test(v.trim()) ? 'email' : undefined);
    if (!t)
      throw new UsageError(`--value "${v.slice(0, 80)}": say what it is with --type (it is not an email)`, {
        flag: '--type',
      });
    const p = prepare(t, v, !!o.hashed, defaultCountry);
    if (!('value' in p)) {
      const why = 'digest' in p ? 'it looks like a SHA-256 digest already (pass --hashed)' : p.reason;
      throw new UsageError(`--value "${v.slice(0, 80)}" is not a valid ${t}: ${why}`, { flag: '--value' });
    }
    out.push(p.value);
  }
  for (const d of out) ctx.io.out(d);
}
