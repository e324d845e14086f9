// The one way a command is declared: a declaration object (name, description, positionals,
// options, run function) becomes a commander Command (`declare`). Hand-written verbs and the
// verbs generated from the ads table (ads/generate.ts) alike. The run function's options are
// typed from the declared flags (`OptionsOf`), its positionals from the declared arguments
// (`ArgsOf`); the Context is built from the program's runtime and the global flags. The run
// function is what tests call in-process (with testContext); this file is the only glue between
// commander and it.
import { type Command, Option } from 'commander';
import { Context, type GlobalOptions } from '../context.js';
import { markDefaultVerb, markRunnable, setGeneratedExamples, withCompletionValues } from './annotations.js';
import { runtimeOf } from './runtime.js';

export function contextFor(cmd: Command): Context {
  return new Context({ ...runtimeOf(cmd), globals: cmd.optsWithGlobals() as GlobalOptions });
}

/** A positional: `['<id>', 'help']`, `['[shell]', 'help']` (optional), `['<ids...>', 'help']`. */
export type ArgDecl = readonly [name: string, description: string];

/**
 * An option: `['--dry-run', 'help']`, `['--timeout <seconds>', 'help', '900']` (a default), or
 * the object form for the rest (choices, an environment variable, hidden, required, the values
 * it completes to when its checks are elsewhere).
 */
export type OptionDecl =
  | readonly [flags: string, description: string]
  | readonly [flags: string, description: string, defaultValue: string]
  | OptionObject;

export interface OptionObject {
  flags: string;
  description: string;
  default?: string;
  choices?: readonly string[];
  env?: string;
  hidden?: boolean;
  /** May be given again: every value, in order (none: []). */
  repeatable?: boolean;
  /** Must be given (commander's requiredOption). */
  required?: boolean;
  /** Values for shell completion only; the checks stay the run function's. */
  completion?: readonly string[];
}

/** What a verb declares; `run` gets options and positionals typed from the declaration. */
export interface CommandDecl<A extends readonly ArgDecl[], O extends readonly OptionDecl[]> {
  name: string;
  description: string;
  arguments?: A;
  options?: O;
  /** The parent runs this verb when given no command of its own (`sandbox faults`). */
  isDefault?: boolean;
  /** Text after the help's option list (a function: built when help is shown). */
  helpAfter?: string | (() => string);
  /** Generated examples (ads verbs; commands/examples.ts's table wins). */
  examples?: (cmd: Command) => string[];
  /** The verb creates the profile --profile names (auth set, login, import, sandbox start). */
  createsProfile?: boolean;
  /**
   * false: the verb never acts on the selected profile (`auth profiles list|use|remove` name
   * profiles themselves), so a stale XCTL_PROFILE must not lock the user out of repairing it.
   */
  selectsProfile?: boolean;
  run: (ctx: Context, flags: OptionsOf<O>, args: ArgsOf<A>) => Promise<void>;
}

// --- Types derived from the declaration: commander's attribute names and value types. ---

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
/** `-o, --output <format>` -> `output`; `--no-color` -> `no-color`. */
type LongName<F extends string> = F extends `${string}--${infer R}`
  ? R extends `${infer N} ${string}`
    ? N
    : R
  : never;
type FlagsOf<D> = D extends readonly [infer F extends string, ...string[]]
  ? F
  : D extends { flags: infer F extends string }
    ? F
    : never;
type ValueOfDecl<D> = D extends { repeatable: true }
  ? string[]
  : D extends { choices: readonly (infer C extends string)[] }
    ? C // commander refuses any other value
    : ValueOf<FlagsOf<D>>;
type KeyOf<D> = LongName<FlagsOf<D>> extends `no-${infer N}` ? Camel<N> : Camel<LongName<FlagsOf<D>>>;
type ValueOf<F extends string> = string extends F
  ? string | boolean | string[] // flags built at run time (generated verbs): any of them
  : F extends `${string}...${string}`
    ? string[]
    : F extends `${string}<${string}>`
      ? string
      : F extends `${string}[${string}]`
        ? string | true
        : boolean;
/** Keys of the declared flags that are not negations. */
type PositiveKeys<O extends readonly OptionDecl[]> = {
  [D in O[number] as LongName<FlagsOf<D>> extends `no-${string}` ? never : KeyOf<D>]: true;
};
/**
 * Always set: a default, a required option, a negated flag with no positive twin (`--no-color`
 * is true unless given; with `--follow` declared too, `--no-follow` sets no default).
 */
type AlwaysSet<D, O extends readonly OptionDecl[]> =
  string extends FlagsOf<D>
    ? false
    : D extends readonly [string, string, string]
      ? true
      : D extends { default: string } | { required: true } | { repeatable: true }
        ? true
        : LongName<FlagsOf<D>> extends `no-${string}`
          ? KeyOf<D> extends keyof PositiveKeys<O>
            ? false
            : true
          : false;
type Simplify<T> = { [K in keyof T]: T[K] };

/** The options object commander hands the action, from the declared options. */
export type OptionsOf<O extends readonly OptionDecl[]> = Simplify<
  { [D in O[number] as AlwaysSet<D, O> extends true ? KeyOf<D> : never]: ValueOfDecl<D> } & {
    [D in O[number] as AlwaysSet<D, O> extends true ? never : KeyOf<D>]?: ValueOfDecl<D>;
  }
>;

type ArgOf<N extends string> = N extends `${string}...${string}`
  ? string[]
  : N extends `<${string}`
    ? string
    : string | undefined;
/** The positionals commander hands the action, from the declared arguments. */
export type ArgsOf<A extends readonly ArgDecl[]> = { [I in keyof A]: ArgOf<A[I][0]> };

// --- The declaration -> commander. ---

function optionOf(d: OptionDecl): Option {
  if (!('flags' in d)) {
    const o = new Option(d[0], d[1]);
    return d.length === 3 ? o.default(d[2]) : o;
  }
  const o = new Option(d.flags, d.description);
  if (d.choices) o.choices(d.choices);
  if (d.default !== undefined) o.default(d.default);
  if (d.repeatable) o.argParser((v: string, prev: string[]) => [...prev, v]).default([]);
  if (d.env) o.env(d.env);
  if (d.hidden) o.hideHelp();
  if (d.required) o.makeOptionMandatory();
  return withCompletionValues(o, d.completion);
}

/** The commander Command of a declaration, under `parent`. */
export function declare<const A extends readonly ArgDecl[] = [], const O extends readonly OptionDecl[] = []>(
  parent: Command,
  d: CommandDecl<A, O>,
): Command {
  const cmd = parent.command(d.name, d.isDefault ? { isDefault: true } : {});
  if (d.isDefault) markDefaultVerb(parent, d.name);
  return declareOn(cmd, d);
}

/**
 * A declaration made on a command that exists already: a group that is one verb itself
 * (`request`, `changelog`, `completion`), whose stub the program made with its description.
 */
export function declareOn<const A extends readonly ArgDecl[] = [], const O extends readonly OptionDecl[] = []>(
  cmd: Command,
  d: Omit<CommandDecl<A, O>, 'name' | 'isDefault' | 'description'> & { description?: string },
): Command {
  if (d.description !== undefined) cmd.description(d.description);
  for (const [name, help] of d.arguments ?? []) cmd.argument(name, help);
  for (const o of d.options ?? []) cmd.addOption(optionOf(o));
  const after = d.helpAfter;
  if (typeof after === 'string') cmd.addHelpText('after', after);
  else if (after) cmd.addHelpText('after', () => after());
  if (d.examples) {
    const examples = d.examples;
    setGeneratedExamples(cmd, () => examples(cmd));
  }
  markRunnable(cmd);
  cmd.action(actionOf<A, O>(d));
  return cmd;
}

/** The commander action: the Context, the checks every verb shares, then the run function. */
function actionOf<A extends readonly ArgDecl[], O extends readonly OptionDecl[]>(
  d: Pick<CommandDecl<A, O>, 'run' | 'createsProfile' | 'selectsProfile'>,
) {
  return async function (this: Command): Promise<void> {
    const ctx = contextFor(this);
    if (d.createsProfile) ctx.allowNewProfile();
    // A mistyped --profile (or XCTL_PROFILE) is refused before anything runs, even by commands
    // that reach the profile only through a fallback (base URL, account, output format).
    else if (ctx.explicitProfile && d.selectsProfile !== false) await ctx.profileName();
    // A bad --jq program or field choice is refused before the command sends anything.
    const g = ctx.globals;
    if (g.jq !== undefined || typeof g.json === 'string' || g.fields !== undefined) await ctx.checkOutput();
    // commander builds both from the declaration above: its keys are the declared flags'
    // attribute names, its positionals the declared arguments in order.
    await d.run(ctx, this.opts() as OptionsOf<O>, this.processedArgs as ArgsOf<A>);
    if (g.jq !== undefined && !ctx.outputAsked) ctx.io.warn('--jq was ignored: this command prints no JSON document');
  };
}
