// --jq: real jq (jq 1.8 compiled to WebAssembly, the jq-wasm package), loaded only when asked for.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { UsageError } from './errors.js';

type JqHandle = Awaited<ReturnType<typeof import('jq-wasm').loadJq>>;
let handle: Promise<JqHandle> | undefined;

function load(): Promise<JqHandle> {
  handle ??= (async () => {
    const { loadJq } = await import('jq-wasm');
    // The wasm is read from the installed package: the bundle in dist/cli cannot find it beside itself.
    const wasmBinary = fs.readFileSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'));
    return loadJq({ wasmBinary });
  })();
  return handle;
}

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

/** Compiles the program without running it on any data: a typo fails before anything is sent. */
export async function checkJq(program: string): Promise<void> {
  const jq = await load();
  // Inside a branch never taken the program is compiled, not run; the newlines keep a trailing comment from eating the ")".
  const r = jq.raw(null, `if false then (\n${program}\n) else empty end`, ['-n']);
  if (r.exitCode === 0) return;
  // jq's own words about the program as written (the wrapped one's line numbers are off by one).
  const plain = jq.raw(null, program, ['-n']);
  throw jqError(/compile error/.test(plain.stderr) ? plain.stderr : r.stderr);
}

/** Runs `program` over the JSON text `input` and returns jq's output (strings raw, as `jq -r`). */
export async function runJq(program: string, input: string): Promise<string> {
  const jq = await load();
  const r = jq.raw(input, program, ['-r']);
  if (r.exitCode !== 0) throw jqError(r.stderr);
  return r.stdout;
}
