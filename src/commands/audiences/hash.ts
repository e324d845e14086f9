// `xctl audiences hash [file|-]`: normalize and hash exactly as upload does, and print the
// digests (no credentials, no network): to check a file before sending it, or to match
// digests elsewhere.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { define } from '../define.js';
import { addInputFlags, parseInputFlags, refuseBinary, type InputFlags } from './input-flags.js';

export interface HashFlags extends InputFlags {
  explain?: boolean;
  rejects?: string;
}

export interface HashCommandOptions extends HashFlags {
  file: string;
}

/** `xctl audiences hash [file]` (no network) */
export function register(audiences: Command, runF = audiencesHash): void {
  addInputFlags(
    audiences
      .command('hash').argument('[file]', 'csv, tsv, plain lines or jsonl (default: stdin)')
      .description('print the SHA-256 digests upload would send, one per line (csv with one column per type for several columns); no network (file "-" or none reads stdin)'),
  )
    .option('--explain', 'one line per value: the input, its normalized form, and the digest or the reason it is rejected')
    .option('--rejects <file>', 'write rejected rows (line, column, reason) as csv')
    .action(define<HashFlags>((ctx, flags, [file]) => runF(ctx, { ...flags, file: file ?? '-' })));
}

export async function audiencesHash(ctx: Context, o: HashCommandOptions): Promise<void> {
  const { columns, defaultCountry } = await parseInputFlags(o);
  if (o.file === '-' && ctx.io.isStdinTTY) throw new UsageError('give a file, or pipe the input on stdin', { flag: '<file>' });
  await refuseBinary(o.file);
  const { runHash } = await import('../../audiences/hash.js');
  const s = await runHash(ctx, { input: o.file, format: o.format as never, columns, hashed: !!o.hashed, defaultCountry, explain: !!o.explain, rejects: o.rejects, lenientQuotes: !!o.lenientQuotes });
  if (s.read > 0 && s.valid === 0 && !o.explain) {
    throw new UsageError(`none of the ${s.read} records could be used: every one was rejected`, {
      hint: `${o.rejects ? `reasons are in ${o.rejects}; ` : 'see why with --explain; '}check --type / --column${o.hashed ? '' : ', --hashed'} and --default-country`,
    });
  }
}
