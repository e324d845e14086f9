// --jq: real jq (jq 1.8 compiled to WebAssembly, the jq-wasm package), loaded only when asked for.
import { createRequire } from 'node:module';
import { InterruptedError, UsageError } from './errors.js';
import { interruptSignal } from './command-end.js';

/** jq's message without its "jq: error ...:" prefix and compile-error count (the caret lines stay). */
function jqError(stderr: string): UsageError {
  const msg = stderr
    .trim()
    .split('\n')
    .filter((l) => !/^jq: \d+ compile errors?$/.test(l))
    .join('\n')
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '');
  return new UsageError(`--jq: ${msg || 'jq failed'}`, { flag: '--jq' });
}

/**
 * Compiles the program without running it on any data: a typo fails before anything is sent.
 * In the worker, under the same limits and Ctrl-C as a run: the program can close the branch
 * that keeps it from running (`1) else (def f: f; f) end, if false then (1`).
 */
export async function checkJq(program: string, signal?: AbortSignal, timeoutMs = JQ_TIMEOUT_MS): Promise<void> {
  // Inside a branch never taken the program is compiled, not run; the newlines keep a trailing comment from eating the ")".
  const wrapped = `if false then (\n${program}\n) else empty end`;
  const r = await inWorker({ program: wrapped, input: null, args: ['-n'] }, signal, timeoutMs);
  if (r.exitCode === 0) return;
  // jq's own words about the program as written (the wrapped one's line numbers are off by one).
  const plain = await inWorker({ program, input: null, args: ['-n'] }, signal, timeoutMs);
  throw jqError(/compile error/.test(plain.stderr) ? plain.stderr : r.stderr);
}

/** Longest a --jq program may run (`def f: f; f` never ends), and the memory it may take. */
const JQ_TIMEOUT_MS = 60_000;
const JQ_MEMORY_MB = 1024;

/**
 * jq runs in a worker thread: the main thread stays free to honour Ctrl-C and the time limit (a
 * WebAssembly loop cannot be interrupted from inside), and a program that exhausts the memory
 * (`[range(1e9)]`) ends the worker, not xctl.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { loadJq } = require(workerData.jqPath);
const ready = loadJq({ wasmBinary: fs.readFileSync(workerData.wasmPath) });
parentPort.on('message', async ({ program, input, args }) => {
  try {
    const r = (await ready).raw(input, program, args);
    parentPort.postMessage({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr });
  } catch (e) {
    parentPort.postMessage({ crashed: String((e && e.message) || e) });
  }
});
`;

type JqWorker = import('node:worker_threads').Worker;
/** One worker for the process (a stream's events each go through it); replaced after a failure. */
let shared: JqWorker | undefined;

async function jqWorker(): Promise<JqWorker> {
  if (shared) return shared;
  const { Worker } = await import('node:worker_threads');
  const req = createRequire(import.meta.url);
  shared = new Worker(WORKER, {
    eval: true,
    workerData: { jqPath: req.resolve('jq-wasm'), wasmPath: req.resolve('jq-wasm/jq.wasm') },
    resourceLimits: { maxOldGenerationSizeMb: JQ_MEMORY_MB },
  });
  shared.unref(); // an idle worker does not keep the command running
  return shared;
}

type JqResult = { exitCode: number; stdout: string; stderr: string } | { crashed: string };

/** Runs `program` over the JSON text `input` and returns jq's output (strings raw, as `jq -r`). */
export async function runJq(
  program: string,
  input: string,
  signal?: AbortSignal,
  timeoutMs = JQ_TIMEOUT_MS,
): Promise<string> {
  const r = await inWorker({ program, input, args: ['-r'] }, signal, timeoutMs);
  if (r.exitCode !== 0) throw jqError(r.stderr);
  return r.stdout;
}

/** One jq call in the worker, stopped by the time limit or the signal (the errors say which). */
async function inWorker(
  call: { program: string; input: string | null; args: string[] },
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  signal ??= interruptSignal();
  const worker = await jqWorker();
  const r = await new Promise<JqResult | 'timeout' | 'aborted' | Error>((resolve) => {
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    const onAbort = () => done('aborted');
    const onExit = () => done(new Error('jq stopped'));
    function done(v: JqResult | 'timeout' | 'aborted' | Error): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', done).off('error', done).off('exit', onExit);
      resolve(v);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', done).once('error', done).once('exit', onExit);
    if (signal?.aborted) onAbort();
    else worker.postMessage(call);
  });
  if (typeof r === 'string' || r instanceof Error || 'crashed' in r) {
    shared = undefined;
    await worker.terminate();
  }
  if (r === 'aborted') throw new InterruptedError('interrupted while --jq ran');
  if (r === 'timeout')
    throw new UsageError(
      `--jq: the program ran for ${timeoutMs / 1000} s without finishing (a recursion that never ends?): stopped`,
      { flag: '--jq' },
    );
  if (r instanceof Error || 'crashed' in r) {
    const why = r instanceof Error ? r.message : r.crashed;
    throw new UsageError(`--jq: the program ran out of memory or failed (${why.slice(0, 200)})`, {
      flag: '--jq',
      hint: 'filter the data down before building large arrays or strings',
    });
  }
  return r;
}
