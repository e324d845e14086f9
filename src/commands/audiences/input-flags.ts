// The input flags upload, sync and hash share: what the values are and how to read them.
import { UsageError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import type { ColumnRequest } from '../../audiences/input.js';
import { ID_TYPES, canonicalType } from '../../contract/audience-users.js';

export interface InputFlags {
  type?: string;
  column?: string[];
  format: string;
  hashed?: boolean;
  defaultCountry?: string;
  ignoreColumn?: string[];
  lenientQuotes?: boolean;
}

const TYPE_HELP = `what each value is: ${ID_TYPES.join(', ')} (service_id is twitter_id)`;

/** The input options (what each value is: `typeHelp`). */
export function inputOptions(typeHelp = TYPE_HELP) {
  return [
    ['--type <type>', typeHelp],
    {
      flags: '--column <TYPE=HEADER>',
      description:
        'build each user from named columns (repeatable), e.g. --column email=Email --column phone_number=Mobile',
      repeatable: true,
    },
    {
      flags: '--ignore-column <NAME>',
      description: 'a header column never to send nor check (repeatable)',
      repeatable: true,
    },
    [
      '--lenient-quotes',
      'csv/tsv: read a quote that is never closed as running on (joined lines are counted) instead of stopping',
    ],
    {
      flags: '--format <format>',
      description: 'input format',
      choices: ['auto', 'csv', 'tsv', 'lines', 'jsonl'],
      default: 'auto',
    },
    ['--hashed', 'values are already SHA-256 digests: check and lowercase them, do not hash again'],
    ['--default-country <CC>', 'country for national phone numbers (ISO 3166 alpha-2, e.g. US)'],
  ] as const;
}

/** Checks --type, --column and --default-country (exit 2 naming the flag). */
export async function parseInputFlags(f: InputFlags): Promise<{ columns: ColumnRequest; defaultCountry?: string }> {
  const { parseColumnFlags } = await import('../../audiences/input.js');
  const columns = parseColumnFlags(f.column ?? []);
  let type = undefined;
  if (f.type !== undefined) {
    type = canonicalType(f.type);
    if (!type)
      throw new UsageError(
        `--type must be one of ${ID_TYPES.join(', ')} (service_id is twitter_id) (got "${f.type}")${didYouMean(f.type, ID_TYPES)}`,
        { flag: '--type' },
      );
  }
  if (type && columns.length)
    throw new UsageError(
      '--type and --column are exclusive: --type for one value per row, --column to build users from several columns',
      { flag: '--column' },
    );
  if (f.defaultCountry !== undefined) {
    const { isSupportedCountry } = await import('libphonenumber-js/min');
    if (!/^[A-Za-z]{2}$/.test(f.defaultCountry) || !isSupportedCountry(f.defaultCountry.toUpperCase() as never)) {
      throw new UsageError(
        `--default-country must be a two-letter country code such as US or GB (got "${f.defaultCountry}")`,
        { flag: '--default-country' },
      );
    }
  }
  const ignore = f.ignoreColumn?.length ? f.ignoreColumn : undefined;
  return { columns: { type, columns, ignore }, defaultCountry: f.defaultCountry?.toUpperCase() };
}

/**
 * A binary file (an archive, a spreadsheet, UTF-16) would otherwise be read as text and every
 * "row" rejected: refuse it up front, as every other file input does.
 */
export async function refuseBinary(file: string): Promise<void> {
  if (file === '-') return;
  const fs = await import('node:fs');
  let fh: import('node:fs').promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch {
    return; // the pipeline reports a missing or unreadable file
  }
  try {
    const buf = Buffer.alloc(65536);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (buf.subarray(0, bytesRead).includes(0))
      throw new UsageError(
        `<file>: ${file} looks binary (it contains NUL bytes): give UTF-8 text (csv, tsv, lines or jsonl)`,
        { flag: '<file>' },
      );
  } finally {
    await fh.close();
  }
}

export function positiveInt(v: string, flag: string, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
    throw new UsageError(`${flag} must be a whole number from 1 to ${max} (got "${v}")`, { flag });
  return Number(v);
}

/** `--max-reject-rate RATE` (upload and sync). */
export const GATE_OPTION = [
  '--max-reject-rate <rate>',
  'refuse the run when more than this share (0-1) of the values is rejected (default 0.2 past 1,000 values; 1 turns it off)',
] as const;
