// Several audiences sync at once (one per account): each runs on a child context whose stderr
// lines start with the audience's name, so its messages can be told apart, and which draws no
// progress bar (its stderr is no terminal: bars of parallel syncs would overwrite each other),
// only the periodic progress lines.
import { Writable } from 'node:stream';
import { Context } from '../../context.js';

/** The warnings each apply printed, by its context: each is printed once (plan and run say the same). */
const printed = new WeakMap<Context, Set<string>>();

/** A context like `ctx` (same signal, clock, wire) whose stderr lines are prefixed with `label`. */
export function labelledContext(ctx: Context, label: string, o: { quiet?: boolean } = {}): Context {
  const target = ctx.io.stderr;
  const seen = printed.get(ctx) ?? new Set<string>();
  printed.set(ctx, seen);
  let atLineStart = true;
  const stderr = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const s = chunk.toString();
      let out = '';
      for (const part of s.split(/(?<=\n)/)) {
        // A whole warning line said before for this audience (the plan's, then the run's): once.
        const line = `${label}: ${part}`;
        if (atLineStart && part.endsWith('\n') && /^warning: /.test(part)) {
          if (seen.has(line)) continue;
          seen.add(line);
        }
        if (atLineStart && part !== '') out += `${label}: `;
        out += part;
        atLineStart = part.endsWith('\n');
      }
      target.write(out);
      done();
    },
  });
  return new Context({
    streams: { stdin: ctx.io.stdin, stdout: ctx.io.stdout, stderr },
    env: ctx.env,
    globals: o.quiet ? { ...ctx.globals, quiet: true } : ctx.globals,
    clock: ctx.clock,
    signal: ctx.signal,
    cwd: ctx.cwd,
    version: ctx.version,
    transport: ctx.transport,
  });
}
