// In-process command tests (gh's iostreams.Test()): a Context whose stdout and stderr are
// captured, whose terminal-ness and width are chosen by the test, whose clock is fake (sleeps
// return at once and move it forward) and whose HTTP goes to a registry. `run(argv)` runs the
// real command tree in-process against the same streams, environment, registry and clock.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { afterEach } from 'vitest';
import { Context, type Clock, type GlobalOptions } from '../../src/context.js';
import type { Transport } from '../../src/core/transport.js';

/** 2026-01-15T12:00:00Z: a fixed "now" so printed times and windows are stable. */
export const TEST_NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

/** Credentials every test context has unless `env` overrides them (never real ones). */
export const TEST_CREDENTIALS = {
  XCTL_API_KEY: 'test-api-key',
  XCTL_API_SECRET: 'test-api-secret',
  XCTL_ACCESS_TOKEN: '1001-test-access-token',
  XCTL_ACCESS_TOKEN_SECRET: 'test-access-token-secret',
  XCTL_BEARER_TOKEN: 'AAAA-test-bearer',
  XCTL_ACCOUNT_ID: 'acct1',
} as const;

export class FakeClock implements Clock {
  /** Every sleep asked for, in ms. */
  readonly sleeps: number[] = [];
  constructor(public t = TEST_NOW) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    this.sleeps.push(ms);
    this.t += ms;
  }
}

class Capture extends Writable {
  private chunks: Buffer[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns: number | undefined,
  ) {
    super();
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    cb();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface TestContextOptions {
  /** true: stdout is a terminal (tables); an object sets each stream. stderr is a terminal only when said (no spinners otherwise). */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** Terminal width (stdout and stderr); default 80. */
  columns?: number;
  stdin?: string | Buffer;
  /** Merged over TEST_CREDENTIALS, NO_COLOR=1 and a fresh XCTL_CONFIG_DIR; undefined removes a variable. */
  env?: Record<string, string | undefined>;
  transport?: Transport;
  globals?: GlobalOptions;
  clock?: Clock;
}

export interface TestContext {
  ctx: Context;
  clock: Clock;
  env: Record<string, string | undefined>;
  /** The config folder of this context (a fresh temporary one). */
  configDir: string;
  stdout(): string;
  stderr(): string;
  /** Runs `xctl ...argv` in-process (commander and the group's real registration) on these streams. */
  run(argv: string[]): Promise<void>;
  /**
   * gh's runF: registers one verb under a bare parent with `runF` in place of its run function,
   * parses `argv` (the verb's words after the parent: `['delete', '123', '--yes']`) and returns
   * the options the run function was handed. Flags -> options, with no HTTP and no output.
   */
  optionsOf<O>(
    register: (parent: Command, runF: (ctx: Context, o: O) => Promise<void>) => void,
    argv: string[],
  ): Promise<O>;
  /** Removes the config folder. */
  cleanup(): void;
}

export function testContext(o: TestContextOptions = {}): TestContext {
  const tty = typeof o.tty === 'object' ? o.tty : { stdout: !!o.tty };
  const columns = o.columns ?? 80;
  const stdout = new Capture(!!tty.stdout, columns);
  const stderr = new Capture(!!tty.stderr, columns);
  const stdin = Object.assign(Readable.from(o.stdin === undefined ? [] : [Buffer.from(o.stdin)]), {
    isTTY: !!tty.stdin,
  });
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-unit-'));
  const env: Record<string, string | undefined> = { ...TEST_CREDENTIALS, NO_COLOR: '1', XCTL_CONFIG_DIR: configDir };
  for (const [k, v] of Object.entries(o.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const clock = o.clock ?? new FakeClock();
  const streams = { stdin, stdout, stderr };
  const signal = new AbortController().signal;
  const ctx = new Context({
    streams,
    env,
    globals: o.globals,
    clock,
    signal,
    version: '0.0.0-test',
    transport: o.transport,
  });
  return {
    ctx,
    clock,
    env,
    configDir,
    stdout: () => stdout.text(),
    stderr: () => stderr.text(),
    async run(argv) {
      const { buildProgram, firstOperand, GROUPS, loadGroups, normalizeArgs } = await import('../../src/program.js');
      const { bindRuntime } = await import('../../src/commands/runtime.js');
      const program = buildProgram('0.0.0-test');
      bindRuntime(program, {
        streams,
        env,
        signal,
        version: '0.0.0-test',
        cwd: process.cwd(),
        transport: o.transport,
        clock,
      });
      const group = firstOperand(argv);
      // As main.ts: a completion script needs the whole tree.
      if (group === 'completion' && !argv.includes('--profiles')) await loadGroups(program, Object.keys(GROUPS));
      else if (group) await loadGroups(program, [group]);
      await program.parseAsync(['node', 'xctl', ...normalizeArgs(program, argv)]);
    },
    async optionsOf<O>(
      register: (parent: Command, runF: (ctx: Context, o: O) => Promise<void>) => void,
      argv: string[],
    ): Promise<O> {
      const { Command: Cmd } = await import('commander');
      const { bindRuntime } = await import('../../src/commands/runtime.js');
      const parent = new Cmd('xctl').exitOverride().configureOutput({
        writeOut: (str) => streams.stdout.write(str),
        writeErr: (str) => streams.stderr.write(str),
      });
      bindRuntime(parent, {
        streams,
        env,
        signal,
        version: '0.0.0-test',
        cwd: process.cwd(),
        transport: o.transport,
        clock,
      });
      const got: O[] = [];
      register(parent, async (_ctx, opts) => void got.push(opts));
      await parent.parseAsync(['node', 'xctl', ...argv]);
      if (got.length !== 1) throw new Error(`the verb's run function was called ${got.length} times`);
      return got[0]!;
    },
    cleanup: () => fs.rmSync(configDir, { recursive: true, force: true }),
  };
}

/**
 * A test file's maker of test contexts: each one made during a test is cleaned up after it
 * (`const tc = useTestContexts();` at the top of the file, then `tc({...})` in the tests).
 */
export function useTestContexts(): (o?: TestContextOptions) => TestContext {
  const made: TestContext[] = [];
  afterEach(() => {
    for (const t of made.splice(0)) t.cleanup();
  });
  return (o = {}) => {
    const t = testContext(o);
    made.push(t);
    return t;
  };
}
