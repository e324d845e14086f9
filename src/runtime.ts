// What main.ts hands to commands: streams, environment, the interrupt signal. Kept free of
// imports so that main.ts can set it without loading anything heavy.
import type { IOStreams } from './core/io.js';

export interface Runtime {
  streams: IOStreams;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  version: string;
  cwd: string;
}

let runtime: Runtime | undefined;

export function setRuntime(r: Runtime): void {
  runtime = r;
}

export function getRuntime(): Runtime {
  if (!runtime) throw new Error('runtime not set');
  return runtime;
}
