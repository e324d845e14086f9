// How a command prints: --json / -o / --fields / --jq / --header-row / --include-cursor, else the
// profile's `output` setting, else TTY-based. Resolved once per command.
import { UsageError } from './errors.js';
import { parseFields, parseFormat, type OutputSettings } from './output.js';

/** The global flags that choose the output. */
export interface OutputFlags {
  /** --json: true, '' (no field list) or the field list of `--json a,b`. */
  json?: boolean | string;
  output?: string;
  fields?: string;
  jq?: string;
  includeCursor?: boolean;
  /** --header-row (also --header on commands without one of their own). */
  headerRow?: boolean;
}

export class OutputChoice {
  private promise?: Promise<OutputSettings>;
  private askedFor = false;

  constructor(
    private readonly flags: OutputFlags,
    private readonly env: Record<string, string | undefined>,
    /** The profile's `output` setting (read only when no flag decides). */
    private readonly profileOutput: () => Promise<string | undefined>,
  ) {}

  /** The settings, counted as the command asking for them. A --jq program is compiled here. */
  settings(): Promise<OutputSettings> {
    this.askedFor = true;
    return this.check();
  }

  /** Resolves (and so checks) the settings without counting as the command asking for them. */
  check(): Promise<OutputSettings> {
    this.promise ??= this.resolve();
    return this.promise;
  }

  /** Whether the command asked for its output settings (a --jq it never used is reported). */
  get asked(): boolean {
    return this.askedFor;
  }

  /** JSON output requested: errors are printed as JSON too. */
  get wantsJson(): boolean {
    const g = this.flags;
    return (g.json !== undefined && g.json !== false) || g.output === 'json' || g.output === 'jsonl';
  }

  private async resolve(): Promise<OutputSettings> {
    const g = this.flags;
    const jsonFields = typeof g.json === 'string' && g.json !== '' ? parseFields(g.json, '--json') : undefined;
    let format = parseFormat(g.output ?? this.env.XCTL_OUTPUT, g.json !== undefined && g.json !== false);
    if (!format) {
      const p = await this.profileOutput().catch(() => undefined);
      if (p) format = parseFormat(p);
    }
    if (jsonFields && g.fields !== undefined)
      throw new UsageError('--json FIELDS and --fields both choose the fields: give one', { flag: '--fields' });
    const settings: OutputSettings = { format, fields: jsonFields ?? parseFields(g.fields) };
    if (g.headerRow === true) settings.header = true;
    if (g.includeCursor) settings.includeCursor = true;
    if (g.jq !== undefined) {
      if (g.jq.trim() === '') throw new UsageError("--jq needs a jq program, e.g. --jq '.[].id'", { flag: '--jq' });
      if (g.output !== undefined && g.output !== 'json')
        throw new UsageError(`--jq filters the JSON output: it cannot be combined with -o ${g.output}`, {
          flag: '--jq',
        });
      const { checkJq } = await import('./jq.js');
      await checkJq(g.jq);
      settings.jq = g.jq;
      settings.format = 'json';
    }
    return settings;
  }
}
