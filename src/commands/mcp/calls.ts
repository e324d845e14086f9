// One tool call: a read runs its verb; a write plans (no plan_id) or executes a plan (plan_id).
// Every answer is the verb's `-o json` output (64-bit ids as printed), or its error object, with
// every secret the process knows masked.
import { ExitCode, InterruptedError, UsageError, XctlError } from '../../core/errors.js';
import { parseJson, stringifyJson } from '../../core/json.js';
import { redactSecrets } from '../../core/redact.js';
import { nodeTransport } from '../../core/node-transport.js';
import type { Transport } from '../../core/transport.js';
import { checkApplyFile } from './apply-file.js';
import { commandLine } from './arguments.js';
import {
  type Plan,
  type PlanBook,
  bodyDigest,
  guardedTransport,
  plannedBodies,
  plannedRequest,
  sentRequest,
} from './plans.js';
import type { Roots } from './roots.js';
import { runVerb, type VerbResult, type VerbRun } from './run-verb.js';
import type { ToolSpec } from './tools.js';

export interface CallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

export interface Server {
  run: Omit<VerbRun, 'signal' | 'onStderrLine'>;
  /** Global flags every call gets (`-o json`, the server's --profile / --account / --base-url). */
  globals: string[];
  /** The guards the server's owner set (`--max-removes=10%`...), given to the verbs declaring them. */
  guards: Map<string, string>;
  allowWrites: boolean;
  roots: Roots;
  plans: PlanBook;
}

export interface CallIo {
  signal: AbortSignal;
  /** Each line of the verb's stderr (progress), as written. */
  onStderrLine?: (line: string) => void;
}

/**
 * What the call answers: one JSON text, then the verb's notes from stderr (not its progress, its
 * error again, or where the server saved a sync plan: the agent executes it by plan_id).
 */
function answer(json: string, stderr: string, isError: boolean): CallResult {
  const notes = stderr
    .split('\n')
    .filter((l) => l.trim() && !/^(\{"progress"|\{"error"|plan saved to )/.test(l))
    .join('\n');
  const content = [{ type: 'text' as const, text: redactSecrets(json) }];
  if (notes) content.push({ type: 'text', text: redactSecrets(notes) });
  return isError ? { content, isError } : { content };
}

/** The verb's JSON on stdout, one document (several JSON lines become an array). */
function stdoutJson(stdout: string): string {
  const lines = stdout.split('\n').filter((l) => l.trim());
  if (lines.length <= 1) return stdout.trim();
  try {
    return `[${lines.map((l) => stringifyJson(parseJson(l))).join(',')}]`;
  } catch {
    return stdout.trim();
  }
}

function failed(r: Pick<VerbResult, 'error' | 'exitCode' | 'stderr'>, resumable?: string): CallResult {
  const error = { ...r.error, ...(resumable ? { resume: resumable } : {}) };
  return answer(stringifyJson({ error }), r.stderr, true);
}

export function refusal(e: unknown): CallResult {
  const error = e instanceof XctlError ? e.toJSON() : { type: 'InternalError', message: String(e), exit_code: 1 };
  return answer(stringifyJson({ error }), '', true);
}

/** The command line of a call: the verb's words and flags, the server's guards, paths confined. */
async function lineOf(s: Server, tool: ToolSpec, args: Record<string, unknown>): Promise<string[]> {
  const line = commandLine(tool, args);
  const argv = [...line.argv];
  for (const p of line.paths) {
    const real = s.roots.confine(p.value, p.param.flag ?? `<${p.param.key}>`);
    const i = argv.lastIndexOf(p.param.flag ? `${p.param.flag}=${p.value}` : p.value);
    argv[i] = p.param.flag ? `${p.param.flag}=${real}` : real;
    if (tool.planKind === 'apply') await checkApplyFile(real, s.roots);
  }
  const guards = tool.guardFlags.flatMap((f) => (s.guards.has(f) ? [`${f}=${s.guards.get(f)}`] : []));
  // Flags go before `--` (after it, everything is a positional).
  const end = argv.indexOf('--');
  return end < 0 ? [...argv, ...guards] : [...argv.slice(0, end), ...guards, ...argv.slice(end)];
}

/** Runs the tool's verb; `confirmed`: a plan's execution, the confirmation a prompt would ask for. */
function verb(
  s: Server,
  io: CallIo,
  tool: ToolSpec,
  argv: string[],
  o: { transport?: Transport; confirmed?: boolean } = {},
): Promise<VerbResult> {
  const globals = o.confirmed ? [...s.globals, '--yes'] : s.globals;
  return runVerb({ ...s.run, ...io, transport: o.transport ?? s.run.transport }, tool.words[0]!, [...globals, ...argv]);
}

/** A tool call, read or write. */
export async function callTool(
  s: Server,
  tool: ToolSpec,
  args: Record<string, unknown>,
  io: CallIo,
): Promise<CallResult> {
  try {
    if (tool.kind === 'write' && !s.allowWrites)
      throw new UsageError(`${tool.name} changes the service: this server is read-only`, {
        hint: 'the person running the server can allow writes with `xctl mcp --allow-writes` (each still needs a plan first)',
      });
    if (tool.kind === 'read') {
      const r = await verb(s, io, tool, await lineOf(s, tool, args));
      return r.exitCode === ExitCode.OK || r.exitCode === ExitCode.CHANGES
        ? answer(stdoutJson(r.stdout), r.stderr, false)
        : failed(r);
    }
    const id = args.plan_id;
    if (id === undefined) return await plan(s, io, tool, args);
    if (typeof id !== 'string') throw new UsageError('plan_id takes a string', { flag: 'plan_id' });
    return await execute(s, io, tool, s.plans.take(id, tool.name, args));
  } catch (e) {
    if (io.signal.aborted && !(e instanceof XctlError)) return refusal(new InterruptedError('interrupted'));
    return refusal(e);
  }
}

/** Plans a write: its dry run (or sync's saved plan, upload's bodies, apply's plan); sends nothing. */
async function plan(s: Server, io: CallIo, tool: ToolSpec, args: Record<string, unknown>): Promise<CallResult> {
  const argv = await lineOf(s, tool, args);
  const id = s.plans.newId();
  const p: Plan = { id, tool: tool.name, kind: tool.planKind, args, argv, allowed: [] };
  const end = argv.indexOf('--');
  const withFlags = (...f: string[]) => (end < 0 ? [...argv, ...f] : [...argv.slice(0, end), ...f, ...argv.slice(end)]);
  let r: VerbResult;
  if (tool.planKind === 'sync') {
    p.file = s.plans.fileFor(id, 'sync.json');
    r = await verb(s, io, tool, withFlags('--plan', `--out=${p.file}`));
  } else if (tool.planKind === 'upload') {
    const bodies = s.plans.fileFor(id, 'bodies.jsonl');
    r = await verb(s, io, tool, withFlags('--dry-run', `--out=${bodies}`));
    if (r.exitCode === ExitCode.OK) p.allowed = await plannedBodies(bodies);
  } else if (tool.planKind === 'apply') {
    r = await verb(s, io, tool, withFlags('--plan'));
    p.shown = r.stdout;
  } else {
    r = await verb(s, io, tool, withFlags('--dry-run'));
    p.allowed = r.stdout.split('\n').flatMap((l) => (l.trim() ? (plannedRequest(l) ?? []) : []));
  }
  if (r.exitCode !== ExitCode.OK && r.exitCode !== ExitCode.CHANGES) return failed(r);
  s.plans.add(p);
  const shown = tool.planKind === 'upload' ? r.stdout.trim() || 'null' : stdoutJson(r.stdout) || 'null';
  const text = `{"plan_id":${JSON.stringify(id)},"tool":${JSON.stringify(tool.name)},"plan":${shown},"execute":${JSON.stringify(
    `call ${tool.name} with {"plan_id": "${id}"} to send exactly this`,
  )}}`;
  return answer(text, r.stderr, false);
}

/** Executes a plan: sends what it showed and nothing else. */
async function execute(s: Server, io: CallIo, tool: ToolSpec, p: Plan): Promise<CallResult> {
  let r: VerbResult;
  if (p.kind === 'sync') {
    r = await verb(s, io, tool, ['audiences', 'sync', `--apply=${p.file}`], { confirmed: true });
  } else if (p.kind === 'apply') {
    const again = await verb(s, io, tool, [
      ...p.argv.slice(0, p.argv.indexOf('--') < 0 ? undefined : p.argv.indexOf('--')),
      '--plan',
    ]);
    if (again.stdout !== p.shown)
      throw new UsageError(`plan ${p.id} is out of date: the files or the audiences changed since; nothing was sent`, {
        flag: 'plan_id',
        hint: `call ${tool.name} without plan_id for a new plan`,
      });
    r = await verb(s, io, tool, p.argv, { confirmed: true });
  } else {
    const match = p.kind === 'upload' ? (req: Parameters<typeof sentRequest>[0]) => bodyDigest(req.body) : sentRequest;
    const transport = guardedTransport(s.run.transport ?? nodeTransport, p.allowed, match);
    r = await verb(s, io, tool, p.argv, { transport, confirmed: true });
  }
  if (r.exitCode === ExitCode.OK) {
    s.plans.spend(p.id);
    return answer(stdoutJson(r.stdout), r.stderr, false);
  }
  // A plan is spent only once it succeeded: stopped (130, 4), locked by its own cancelled run
  // still draining (75) or failed, the same plan_id runs it again (refused if it went stale).
  const resumable = new Set<number>([ExitCode.INTERRUPTED, ExitCode.PARTIAL, ExitCode.RETRY_LATER]).has(r.exitCode);
  // A sync's saved plan no longer matches its snapshot once part of it was sent: sync itself
  // finishes the interrupted one first, in a new plan.
  const resume =
    p.kind === 'sync'
      ? `the journal is kept: call ${tool.name} with the same arguments for a new plan (it finishes the interrupted sync first), then execute that`
      : `the journal is kept: call ${tool.name} with {"plan_id": "${p.id}"} again to resume`;
  return failed(r, resumable ? resume : undefined);
}
