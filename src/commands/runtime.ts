// What main.ts hands to the commands of the program it built: streams, environment, the
// interrupt signal (tests: the HTTP wire and the clock). Bound to that program, not held in a
// module-level variable, so that two programs in one process (tests) never share one. Kept free
// of value imports so that main.ts can bind it without loading anything heavy.
import type { Command } from 'commander';
import type { Clock } from '../core/clock.js';
import type { IOStreams } from '../core/io.js';
import type { Transport } from '../core/transport.js';

export interface Runtime {
  streams: IOStreams;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  version: string;
  cwd: string;
  /** Tests only: the HTTP wire (an HTTP registry) and the clock; production uses node:http and the system clock. */
  transport?: Transport;
  clock?: Clock;
  /**
   * main.ts: makes a fresh program and loads command groups into it, for a command that runs
   * other verbs in-process (`xctl mcp`); the group loader stays program.ts's.
   */
  programs?: ProgramHost;
}

export interface ProgramHost {
  /** A new root command with every group's stub (no runtime bound yet). */
  build(): Command;
  /** Loads the named groups' trees into `program` (program.ts `loadGroups`). */
  load(program: Command, groups: string[]): Promise<void>;
}

const bound = new WeakMap<Command, Runtime>();

/** Hands `r` to every command of `program` (its root command). */
export function bindRuntime(program: Command, r: Runtime): void {
  bound.set(program, r);
}

/** The runtime bound to the program `cmd` belongs to. */
export function runtimeOf(cmd: Command): Runtime {
  let c: Command | null = cmd;
  while (c) {
    const r = bound.get(c);
    if (r) return r;
    c = c.parent;
  }
  throw new Error('no runtime is bound to this program (main.ts binds one)');
}
