// The MCP tools of `xctl mcp`, derived from the command tree itself: a tool is a verb (its name the
// command's words, its description and parameters the declaration's), so nothing here restates a
// flag, a limit or an enum. What this file holds is policy only: which verbs are offered, which of
// them change something (and so need --allow-writes and a plan), and which flags a tool never
// takes (secrets, files written, the guards the server's owner sets). docs/mcp.md gives the reasons.
import type { Argument, Command, Option } from 'commander';
import type { PlanKind } from './plans.js';

/** The command groups whose verbs are offered (their trees are loaded to list the tools). */
export const TOOL_GROUPS = ['ads', 'audiences', 'webhooks', 'activity', 'sandbox'] as const;

/** Branches of the tree offered as tools: every verb under these words. */
const OFFERED = [
  'ads accounts',
  'ads campaigns',
  'ads line-items',
  'ads targeting',
  'ads targeting-options',
  'ads stats',
  'audiences list',
  'audiences get',
  'audiences create',
  'audiences delete',
  'audiences inspect',
  'audiences upload',
  'audiences sync',
  'audiences apply',
  'webhooks list',
  'webhooks doctor',
  'webhooks delete',
  'activity subscriptions list',
  'activity subscriptions delete',
  'sandbox state',
];

/**
 * Verbs that say no method in their description yet only read: a stats job's wait (its polls
 * become progress notifications) and download, offline checks, webhook and subscription lists,
 * the sandbox's counts.
 */
const READS = new Set([
  'ads stats job wait',
  'ads stats job download',
  'audiences inspect',
  'webhooks list',
  'webhooks doctor',
  'activity subscriptions list',
  'sandbox state',
]);

/** Verbs offered as a plan only (a read: the flag that makes it one is always given). */
export const PLAN_ONLY: Record<string, { suffix: string; flag: string }> = {
  'audiences sync': { suffix: 'plan', flag: '--plan' },
  'audiences apply': { suffix: 'plan', flag: '--plan' },
};

/**
 * Flags no tool takes. Secrets or whole states (`sandbox state --out` writes the credentials),
 * files the server writes (journals, rejects, saved plans: the server keeps its own), the guards
 * the person who starts the server sets (`xctl mcp --max-removes`, `--max-reject-rate`), and the
 * flags the tool itself sets (`--plan`, `--apply`, `--dry-run`, `--yes`).
 */
export const WITHHELD = new Set([
  '--out',
  '--rejects',
  '--journal',
  '--state-dir',
  '--from-upload',
  '--max-removes',
  '--max-reject-rate',
  '--plan',
  '--apply',
  '--dry-run',
  '--yes',
  '--schema',
  '--restart',
  '--concurrency',
  '--help',
]);

/** A flag or positional whose value names a file the tool reads: confined to the --root folders. */
export function takesPath(valueName: string): boolean {
  return /(^|[^a-z])(file|path|journal|plan\.json|dir)([^a-z]|$)/i.test(valueName);
}

export type ToolKind = 'read' | 'write';

export interface ToolParam {
  /** The JSON property: the flag's long name (or the argument's) in snake_case. */
  key: string;
  /** The flag as typed (`--campaign-ids`), or undefined for a positional. */
  flag?: string;
  /** The negated flag, for a boolean that has one (`--no-with-deleted`). */
  negate?: string;
  /** boolean: a flag without a value; string: one value; array: repeatable or variadic. */
  type: 'boolean' | 'string' | 'array' | 'string-or-boolean';
  required: boolean;
  isPath: boolean;
  schema: Record<string, unknown>;
}

export interface ToolSpec {
  name: string;
  /** The command's words after `xctl` (`['ads', 'campaigns', 'list']`). */
  words: string[];
  kind: ToolKind;
  /** The flag always given (`--plan` for the plan-only tools). */
  forced?: string;
  /** A write's plan: its --dry-run, or upload's, sync's or apply's own. */
  planKind: PlanKind;
  /** The server-set guards (`--max-removes`, `--max-reject-rate`) this verb declares. */
  guardFlags: string[];
  description: string;
  params: ToolParam[];
  inputSchema: {
    type: 'object';
    properties: Record<string, unknown>;
    required?: string[];
    additionalProperties: false;
  };
}

const snake = (s: string) => s.replace(/^-+/, '').replace(/-/g, '_');

/** The method a description names (`... — POST /12/accounts/...`), if any. */
export function methodOf(description: string): string | undefined {
  // \u2014, not the character: the launcher reads the bundle as latin1 and esbuild keeps a regex's UTF-8.
  return /\u2014 (GET|POST|PUT|PATCH|DELETE) \//.exec(description)?.[1];
}

function optionParam(o: Option, negated: boolean): ToolParam {
  const long = o.long!;
  const valueName = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1] ?? '';
  const repeatable = Array.isArray(o.defaultValue);
  const type: ToolParam['type'] =
    o.variadic || repeatable ? 'array' : o.optional ? 'string-or-boolean' : o.required ? 'string' : 'boolean';
  const schema: Record<string, unknown> = { description: o.description };
  const values = o.argChoices ? { type: 'string', enum: o.argChoices } : { type: 'string' };
  if (type === 'array') Object.assign(schema, { type: 'array', items: values });
  else if (type === 'string') Object.assign(schema, values);
  else if (type === 'string-or-boolean') Object.assign(schema, { type: ['string', 'boolean'] });
  else schema.type = 'boolean';
  if (typeof o.defaultValue === 'string') schema.default = o.defaultValue;
  return {
    key: snake(long),
    flag: long,
    negate: negated ? `--no-${long.slice(2)}` : undefined,
    type,
    required: o.mandatory,
    isPath: takesPath(valueName),
    schema,
  };
}

function argumentParam(a: Argument): ToolParam {
  const values = a.argChoices ? { type: 'string', enum: a.argChoices } : { type: 'string' };
  return {
    key: snake(a.name()),
    type: a.variadic ? 'array' : 'string',
    required: a.required,
    isPath: takesPath(a.name()),
    schema: { description: a.description, ...(a.variadic ? { type: 'array', items: values } : values) },
  };
}

/** The parameters a verb's tool takes: its positionals, then its flags, less the withheld. */
export function paramsOf(cmd: Command): ToolParam[] {
  const params = cmd.registeredArguments.map(argumentParam);
  const longs = new Set(cmd.options.map((o) => o.long));
  for (const o of cmd.options) {
    if (!o.long || o.hidden || WITHHELD.has(o.long)) continue;
    if (o.negate) {
      // `--no-x` alone: the property x, true unless given false.
      const positive = `--${o.long.slice(5)}`;
      if (longs.has(positive)) continue;
      params.push({
        key: snake(positive),
        flag: undefined,
        negate: o.long,
        type: 'boolean',
        required: false,
        isPath: false,
        schema: { type: 'boolean', description: o.description, default: true },
      });
      continue;
    }
    params.push(optionParam(o, longs.has(`--no-${o.long.slice(2)}`)));
  }
  return params;
}

/** `ads campaigns list` -> `ads_campaigns_list` (the words keep their hyphens). */
export function toolName(words: string[], suffix?: string): string {
  return [...words, ...(suffix ? [suffix] : [])].join('_');
}

function pathOf(cmd: Command): string[] {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words;
}

function* leaves(cmd: Command): Generator<Command> {
  const subs = cmd.commands.filter((c) => c.name() !== 'help');
  if (subs.length === 0) yield cmd;
  for (const c of subs) yield* leaves(c);
}

/** What the plan and execution parameters say, for a write tool's schema. */
export const PLAN_ID_PARAM = {
  type: 'string',
  description:
    'execute the plan this id names (the id a call without plan_id returned); without it, the call only plans: it shows what would be sent and sends nothing',
};

/** The guards the person starting the server sets; a tool never takes them. */
export const GUARD_FLAGS = ['--max-removes', '--max-reject-rate'];

/** How a write is planned: its own plan where it has one, else --dry-run (none: not offered). */
function planKindOf(path: string, cmd: Command): PlanKind | undefined {
  if (path === 'audiences sync') return 'sync';
  if (path === 'audiences apply') return 'apply';
  if (path === 'audiences upload') return 'upload';
  return cmd.options.some((o) => o.long === '--dry-run') ? 'dry-run' : undefined;
}

/** The tools of a loaded program: every offered verb, read or write. */
export function toolsOf(program: Command, withAccount = true): ToolSpec[] {
  const tools: ToolSpec[] = [];
  for (const group of TOOL_GROUPS) {
    const root = program.commands.find((c) => c.name() === group);
    if (!root) continue;
    for (const cmd of leaves(root)) {
      const words = pathOf(cmd);
      const path = words.join(' ');
      if (!OFFERED.some((p) => path === p || path.startsWith(`${p} `))) continue;
      const description = cmd.description();
      const plan = PLAN_ONLY[path];
      const method = methodOf(description);
      const kind: ToolKind = plan || READS.has(path) || method === 'GET' ? 'read' : 'write';
      const planKind = planKindOf(path, cmd);
      // A write that cannot show what it would send is not offered.
      if ((kind === 'write' || plan) && !planKind) continue;
      const params = paramsOf(cmd);
      const guardFlags = GUARD_FLAGS.filter((f) => cmd.options.some((o) => o.long === f));
      // An ads or audiences verb acts on an account: the global --account, as a parameter.
      if (withAccount && (group === 'ads' || group === 'audiences') && !params.some((p) => p.key === 'account'))
        params.push({
          key: 'account',
          flag: '--account',
          type: 'string',
          required: false,
          isPath: false,
          schema: { type: 'string', description: "ads account id (default: the profile's)" },
        });
      const common = { words, description, params, guardFlags, planKind: planKind ?? 'dry-run' };
      tools.push(specOf(common, kind, plan));
      if (plan) tools.push(specOf(common, 'write'));
    }
  }
  return tools;
}

function specOf(
  c: Pick<ToolSpec, 'words' | 'description' | 'params' | 'guardFlags' | 'planKind'>,
  kind: ToolKind,
  plan?: { suffix: string; flag: string },
): ToolSpec {
  const { words, description, params } = c;
  const properties: Record<string, unknown> = Object.fromEntries(params.map((p) => [p.key, p.schema]));
  const required = params.filter((p) => p.required).map((p) => p.key);
  const isWrite = kind === 'write';
  if (isWrite) properties.plan_id = PLAN_ID_PARAM;
  const text = plan
    ? `${description} (the plan only: sends nothing; \`xctl ${words.join(' ')} ${plan.flag}\`)`
    : isWrite
      ? `${description} (a write: call it without plan_id for the plan, then with the plan's plan_id to execute it; \`xctl ${words.join(' ')}\`)`
      : `${description} (\`xctl ${words.join(' ')}\`)`;
  return {
    ...c,
    name: toolName(words, plan?.suffix),
    kind,
    forced: plan?.flag,
    description: text,
    // A write named by plan_id alone needs none of its parameters again.
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length && !isWrite ? { required } : {}),
      additionalProperties: false,
    },
  };
}
