// What xctl knows about a command or an option beyond commander's public fields, kept beside them
// (not patched onto commander's objects, nor read from its private ones): the examples generated
// for an ads verb, the values an option completes to when its checks are the ads table's rather
// than commander's choices, and which commands run something themselves (an action, or a
// default verb) rather than only group others. `declare` (define.ts) records all of them.
import type { Command, Option } from 'commander';

const examples = new WeakMap<Command, () => string[]>();
const completions = new WeakMap<Option, readonly string[]>();
const runnable = new WeakSet<Command>();
const defaultVerbs = new WeakMap<Command, string>();

export function setGeneratedExamples(cmd: Command, fn: () => string[]): void {
  examples.set(cmd, fn);
}

export function generatedExamples(cmd: Command): string[] | undefined {
  return examples.get(cmd)?.();
}

/** Values for shell completion only; the option's checks stay where they are. */
export function withCompletionValues(o: Option, values: readonly string[] | undefined): Option {
  if (values) completions.set(o, values);
  return o;
}

export function completionValues(o: Option): readonly string[] | undefined {
  return completions.get(o);
}

/** `cmd` has an action of its own. */
export function markRunnable(cmd: Command): void {
  runnable.add(cmd);
}

/** `parent` runs its verb `name` when given none (commander's `isDefault`). */
export function markDefaultVerb(parent: Command, name: string): void {
  defaultVerbs.set(parent, name);
}

export function defaultVerbOf(cmd: Command): string | undefined {
  return defaultVerbs.get(cmd);
}

/** True when `cmd` runs something itself: an action, or a default verb. */
export function runsItself(cmd: Command): boolean {
  return runnable.has(cmd) || defaultVerbs.has(cmd);
}
