// What main.ts hands to commands: streams, environment, the interrupt signal. Kept free of
// imports so that main.ts can set it without loading anything heavy.
import type { IOStreams } from './core/io.js';
import type { Transport } from './core/transport.js';
import type { Clock } from './context.js';

export interface Runtime {
  streams: IOStreams;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  version: string;
  cwd: string;
  /** Tests only: the HTTP wire (an HTTP registry) and the clock; production uses undici and the system clock. */
  transport?: Transport;
  clock?: Clock;
}

let runtime: Runtime | undefined;

export function setRuntime(r: Runtime): void {
  runtime = r;
}

export function getRuntime(): Runtime {
  if (!runtime) throw new Error('runtime not set');
  return runtime;
}
