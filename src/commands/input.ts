// Input helpers of the verbs: stdin, secrets (never from argv), files given as flags, JSON input.
import fs from 'node:fs';
import type { Context } from '../context.js';
import { UsageError, errnoCode, errorMessage } from '../core/errors.js';
import { parseJson } from '../core/json.js';
import { bufferOf } from '../contract/guards.js';

/** Reads all of stdin (or a stream) as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(bufferOf(c));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A secret value: `-` reads it from stdin, otherwise a hidden prompt on a terminal. Secrets are
 * never taken from argv (they would land in shell history and `ps`).
 */
export async function readSecret(
  ctx: Context,
  value: string | boolean | undefined,
  flag: string,
): Promise<string | undefined> {
  if (value === undefined || value === false) return undefined;
  if (value === '-') {
    if (ctx.io.isStdinTTY) return promptHidden(ctx, `${flag}: `);
    const text = (await readAll(ctx.io.stdin)).replace(/\r?\n$/, '');
    if (!text) throw new UsageError(`${flag} -: nothing was read from stdin`, { flag });
    return text.split(/\r?\n/)[0];
  }
  if (value === true || value === '') {
    if (!ctx.io.isStdinTTY) throw new UsageError(`${flag} needs a value: pass "-" and pipe it on stdin`, { flag });
    return promptHidden(ctx, `${flag}: `);
  }
  throw new UsageError(
    `${flag} takes no value on the command line (it would be kept in shell history): pass "-" and pipe it on stdin, or omit the value to be prompted`,
    {
      flag,
    },
  );
}

export async function promptHidden(ctx: Context, question: string): Promise<string> {
  const io = ctx.io;
  if (!io.isStdinTTY) throw new UsageError(`cannot prompt for ${question.replace(/: $/, '')}: stdin is not a terminal`);
  io.stderr.write(question);
  const stdin = io.stdin as NodeJS.ReadStream;
  stdin.setRawMode?.(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(buf);
        }
        if (ch === '\u0003') {
          done();
          return reject(new UsageError('cancelled'));
        }
        if (ch === '\u007f') buf = buf.slice(0, -1);
        else buf += ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

/** `@path`, `path` or `-` (stdin) to text; a clear usage error for a missing or binary file. */
export async function readInputArg(ctx: Context, spec: string, flag: string): Promise<string> {
  if (spec === '-' || spec === '@-') return readAll(ctx.io.stdin);
  const p = spec.startsWith('@') ? spec.slice(1) : spec;
  let buf: Buffer;
  try {
    buf = await fs.promises.readFile(p);
  } catch (e) {
    const code = errnoCode(e);
    throw new UsageError(
      `${flag}: cannot read ${p}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : errorMessage(e)}`,
      { flag },
    );
  }
  if (buf.includes(0)) throw new UsageError(`${flag}: ${p} looks binary (it contains NUL bytes)`, { flag });
  return buf.toString('utf8');
}

/** Parses JSON input with an error that points at the flag and the position. */
export function parseJsonInput(text: string, flag: string, what = 'input'): unknown {
  if (!text.trim()) throw new UsageError(`${flag}: the ${what} is empty`, { flag });
  if (nestingOf(text) > MAX_JSON_DEPTH)
    throw new UsageError(`${flag}: the ${what} nests deeper than ${MAX_JSON_DEPTH} levels: nothing was sent`, { flag });
  try {
    return parseJson(text);
  } catch (e) {
    throw new UsageError(`${flag}: the ${what} is not valid JSON: ${errorMessage(e)}`, { flag });
  }
}

/**
 * Deeper than any body the service takes; past it, writing the body back out (and validating it)
 * would run out of stack: refused as bad input, before anything else reads it.
 */
const MAX_JSON_DEPTH = 512;

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), in one pass. */
function nestingOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}
