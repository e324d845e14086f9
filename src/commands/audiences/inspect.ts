// `xctl audiences inspect <file>`: what an upload of the file would send, and what it would
// lose (no credentials, no network): a report on a terminal, `-o json` for scripts. Exit 2
// when the upload would refuse the file (a quote never closed, an unmapped column of emails or
// phone numbers, the reject-rate gate), after the report.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError, errnoCode, errorMessage } from '../../core/errors.js';
import { escapeForTerminal } from '../../core/io.js';
import { effectiveFormat } from '../../core/output.js';
import { declare } from '../define.js';
import type { InspectReport } from '../../audiences/inspect.js';
import { GATE_OPTION, inputOptions, parseInputFlags, refuseBinary, type InputFlags } from './input-flags.js';

export interface InspectFlags extends InputFlags {
  maxRejectRate?: string;
}

export interface InspectCommandOptions extends InspectFlags {
  file: string;
}

/** `xctl audiences inspect <file>` (no network) */
export function register(audiences: Command, runF = audiencesInspect): void {
  declare(audiences, {
    name: 'inspect',
    description:
      'a quality report of what an upload of the file would send: columns, coverage, duplicates, rejects, typo domains, phone countries, requests and time; no network',
    arguments: [['<file>', 'csv, tsv, plain lines or jsonl; "-" reads stdin']],
    options: [...inputOptions(), GATE_OPTION],
    run: (ctx, flags, [file]) => runF(ctx, { ...flags, file }),
  });
}

export async function audiencesInspect(ctx: Context, o: InspectCommandOptions): Promise<void> {
  const { columns, defaultCountry } = await parseInputFlags(o);
  if (o.file === '-' && ctx.io.isStdinTTY)
    throw new UsageError('give a file, or pipe the input on stdin', { flag: '<file>' });
  const { parseRejectGate } = await import('../../audiences/gate.js');
  const gate = parseRejectGate(o.maxRejectRate);
  await refuseBinary(o.file);
  const { inspectInput, fileStream } = await import('../../audiences/inspect.js');
  let stream: NodeJS.ReadableStream;
  try {
    stream = o.file === '-' ? ctx.io.stdin : fileStream(o.file);
    if (o.file !== '-')
      await new Promise<void>((ok, fail) =>
        (stream as import('node:fs').ReadStream).once('open', () => ok()).once('error', fail),
      );
  } catch (e) {
    throw new UsageError(`cannot read ${o.file}: ${errnoCode(e) === 'ENOENT' ? 'no such file' : errorMessage(e)}`, {
      flag: '<file>',
    });
  }
  const r = await inspectInput(stream, o.file, {
    input: o.file,
    format: o.format as never,
    columns,
    hashed: !!o.hashed,
    defaultCountry,
    lenientQuotes: !!o.lenientQuotes,
    gate,
  });
  const format = effectiveFormat(ctx.io, await ctx.output());
  if (format === 'json' || format === 'jsonl') ctx.io.out(JSON.stringify(r, null, format === 'json' ? 2 : undefined));
  else ctx.io.out(renderReport(r));
  const refusal = refusalOf(r);
  if (refusal) {
    throw new UsageError(`an upload would refuse this file: ${refusal}`, {
      flag: '<file>',
      hint: 'see the report above; --column, --ignore-column, --lenient-quotes and --max-reject-rate say what to do instead',
    });
  }
}

/** Why an upload would refuse the file (the same rules, before sending), if it would. */
function refusalOf(r: InspectReport): string | undefined {
  if (r.quote_fault) return r.quote_fault;
  const hidden = r.columns.find((c) => c.looks_like && !c.ignored);
  if (hidden) return `column "${hidden.name}" looks like ${hidden.looks_like} but is not mapped`;
  return r.gate === 'pass' ? undefined : `reject rate ${r.reject_rate}: the gate would ${r.gate}`;
}

/** The report as text: sections of aligned lines, file data escaped for the terminal. */
export function renderReport(r: InspectReport): string {
  const e = (s: string) => escapeForTerminal(s);
  const out: string[] = [];
  const kv = (k: string, v: string | number) => out.push(`${k.padEnd(22)}${v}`);
  kv('file', e(r.file));
  kv('format', r.format);
  kv('lines', `${r.lines} (${r.rows} rows, ${r.blank} blank, ${r.joined_lines} joined into quoted fields)`);
  if (r.quote_fault) kv('quote fault', e(r.quote_fault));
  if (r.unterminated_last_line)
    kv('last line', `${r.unterminated_last_line} has no newline: the file may be cut short (a failed export)`);
  out.push('', 'COLUMN'.padEnd(28) + 'TYPE'.padEnd(15) + 'COVERAGE  NOTE');
  for (const c of r.columns) {
    const note = c.ignored
      ? 'ignored (--ignore-column)'
      : c.looks_like
        ? `NOT MAPPED, looks like ${c.looks_like}`
        : c.type
          ? ''
          : 'not sent';
    out.push(
      e(c.name).slice(0, 27).padEnd(28) +
        (c.type ?? '-').padEnd(15) +
        `${(c.coverage * 100).toFixed(1)}%`.padStart(8) +
        `  ${note}`,
    );
  }
  out.push('', 'TYPE'.padEnd(15) + 'VALUES'.padStart(10) + 'VALID'.padStart(10) + 'REJECTED'.padStart(10));
  for (const [t, v] of Object.entries(r.values))
    out.push(
      t.padEnd(15) + String(v.values).padStart(10) + String(v.valid).padStart(10) + String(v.rejected).padStart(10),
    );
  out.push('');
  kv('duplicates', `${r.duplicates.exact} exact, ${r.duplicates.after_normalization} more after normalization`);
  kv('normalization changed', `${r.normalization_changed.count} values`);
  for (const x of r.normalization_changed.examples)
    out.push(`  line ${x.line} (${x.type}): ${e(JSON.stringify(x.input))} -> ${e(JSON.stringify(x.normalized))}`);
  kv('reject rate', `${r.reject_rate} (gate: ${r.gate})`);
  for (const x of r.rejects)
    out.push(`  ${x.count} x ${e(x.reason)} (${e(x.column)}), e.g. line ${x.lines.join(', ')}`);
  if (r.typo_domains.length) kv('likely typo domains', '');
  for (const x of r.typo_domains) out.push(`  ${e(x.domain)} (${x.count}) -> ${x.likely}?`);
  if (r.phone_countries.length)
    kv('phone countries', r.phone_countries.map((x) => `${x.country} ${x.count}`).join(', '));
  kv('users to send', r.users);
  kv('requests', `${r.requests} (${r.seconds_at_rate_limit} s at the rate limit of 1500 requests a minute)`);
  return out.join('\n');
}
