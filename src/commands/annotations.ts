// What xctl knows about a command or an option beyond commander's own fields, kept beside them
// (not patched onto commander's objects): the examples generated for an ads verb, the values an
// option completes to when its checks are the ads table's rather than commander's choices.
import type { Command, Option } from 'commander';

const examples = new WeakMap<Command, () => string[]>();
const completions = new WeakMap<Option, readonly string[]>();

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
