// A tool call's arguments -> the verb's command line. Nothing is validated here beyond the shape
// the tool's schema gives (the verb checks every value itself, in the CLI's words); what this file
// guarantees is that an argument can only ever be the flag or positional it names: a property the
// schema lacks is refused as commander refuses an unknown flag, values are glued to their flag
// (`--q=-x` is a value, never a flag) and positionals follow `--`.
import { UsageError } from '../../core/errors.js';
import type { ToolParam, ToolSpec } from './tools.js';

/** A JSON value given for a string flag: numbers and booleans as the CLI would read them. */
function text(p: ToolParam, v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  throw new UsageError(`${p.flag ?? `<${p.key}>`} takes a string (got ${JSON.stringify(v)})`, { flag: p.flag });
}

/** What a call names: its flags and positionals, and the files it reads (for the --root check). */
export interface CallLine {
  argv: string[];
  paths: Array<{ param: ToolParam; value: string }>;
}

/** The command line of a call (after `xctl`), `skip`: keys that are the tool's own (plan_id). */
export function commandLine(tool: ToolSpec, args: Record<string, unknown>, skip = ['plan_id']): CallLine {
  const byKey = new Map(tool.params.map((p) => [p.key, p]));
  for (const k of Object.keys(args)) {
    if (!byKey.has(k) && !skip.includes(k))
      throw new UsageError(`unknown option '--${k.replace(/_/g, '-')}'`, { flag: `--${k.replace(/_/g, '-')}` });
  }
  const flags: string[] = [];
  const positionals: string[] = [];
  const paths: CallLine['paths'] = [];
  for (const p of tool.params) {
    const v = args[p.key];
    if (v === undefined || v === null) continue;
    const values = p.type === 'array' ? (Array.isArray(v) ? v : [v]).map((x) => text(p, x)) : undefined;
    if (!p.flag && !(p.type === 'boolean' && p.negate)) {
      const given = values ?? [text(p, v)];
      positionals.push(...given);
      if (p.isPath) for (const value of given) paths.push({ param: p, value });
      continue;
    }
    if (p.type === 'boolean' || (p.type === 'string-or-boolean' && typeof v === 'boolean')) {
      if (typeof v !== 'boolean') throw new UsageError(`${p.flag ?? p.negate} takes true or false`, { flag: p.flag });
      if (v && p.flag) flags.push(p.flag);
      else if (!v && p.negate) flags.push(p.negate);
      continue;
    }
    for (const value of values ?? [text(p, v)]) {
      flags.push(`${p.flag}=${value}`);
      if (p.isPath) paths.push({ param: p, value });
    }
  }
  // commander takes `--` as the end of options only where positionals are declared.
  return {
    argv: [
      ...tool.words,
      ...(tool.forced ? [tool.forced] : []),
      ...flags,
      ...(positionals.length ? ['--', ...positionals] : []),
    ],
    paths,
  };
}
