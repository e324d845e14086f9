// How a verb becomes a commander action: build its Context from the program's runtime and the
// global flags, then call the verb's run function with its options. The run function is what tests
// call in-process (with testContext); this file is the only glue between commander and it.
import type { Command } from 'commander';
import { Context, type GlobalOptions } from '../context.js';
import { runtimeOf } from './runtime.js';

export function contextFor(cmd: Command): Context {
  return new Context({ ...runtimeOf(cmd), globals: cmd.optsWithGlobals() as GlobalOptions });
}

/**
 * A commander action for a verb: `fn(ctx, flags, positionals)` maps the positionals to the
 * verb's named options and calls its run function, e.g.
 * `define<Flags>((ctx, o, [id]) => run(ctx, { ...o, id: id! }))`.
 */
export function define<F = Record<string, never>>(
  fn: (ctx: Context, flags: F, args: string[]) => Promise<void>,
  o: DefineOptions = {},
) {
  return async function (this: Command, ...params: unknown[]): Promise<void> {
    const cmd = params[params.length - 1] as Command;
    const ctx = contextFor(cmd);
    if (o.createsProfile) ctx.allowNewProfile();
    // A mistyped --profile (or XCTL_PROFILE) is refused before anything runs, even by commands
    // that reach the profile only through a fallback (base URL, account, output format).
    else if (ctx.explicitProfile && o.selectsProfile !== false) await ctx.profileName();
    // A bad --jq program or field choice is refused before the command sends anything.
    const g = ctx.globals;
    if (g.jq !== undefined || typeof g.json === 'string' || g.fields !== undefined) await ctx.checkOutput();
    await fn(ctx, cmd.opts() as F, cmd.args);
    if (g.jq !== undefined && !ctx.outputAsked) ctx.io.warn('--jq was ignored: this command prints no JSON document');
  };
}

export interface DefineOptions {
  /** The verb creates the profile --profile names (auth set, login, import, sandbox start): an unknown name is not an error. */
  createsProfile?: boolean;
  /**
   * false: the verb never acts on the selected profile (`auth profiles list|use|remove` name
   * profiles themselves), so a stale XCTL_PROFILE must not lock the user out of repairing it.
   */
  selectsProfile?: boolean;
}
