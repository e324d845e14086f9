// The MCP server of `xctl mcp` (the official SDK's low-level Server over stdio): lists the tools
// of tools.ts, runs each call through calls.ts with its progress and cancellation, and serves
// the command reference and the platform's limits as resources.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import type { ProgramHost } from '../runtime.js';
import { callTool, refusal, type Server as ToolServer } from './calls.js';
import { PlanBook } from './plans.js';
import { RESOURCES, readResource } from './resources.js';
import { Roots } from './roots.js';
import { TOOL_GROUPS, toolsOf, type ToolSpec } from './tools.js';

/** `xctl mcp`'s flags, and the program's loader. */
export interface McpOptions {
  allowWrites?: boolean;
  root: string[];
  maxRemoves?: string;
  maxRejectRate?: string;
  /** The program's loader (main.ts binds it): the tools' verbs run in-process through it. */
  programs?: ProgramHost;
}

const INSTRUCTIONS =
  'xctl: the ads API, custom audiences and webhooks of the platform. Read tools run at once. ' +
  'A write tool called without plan_id only plans (shows what it would send, sends nothing) and returns a plan_id; ' +
  'call it again with {"plan_id": ...} to send exactly that. Outputs are the JSON `xctl ... -o json` prints. ' +
  'Resources: xctl://reference (every tool and flag) and xctl://limits.';

/** The environment each verb runs with: no prompts, progress as JSON lines every second. */
function verbEnv(ctx: Context, sandbox?: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...ctx.env, XCTL_NO_PROMPT: '1', NO_COLOR: '1' };
  env.XCTL_PROGRESS_INTERVAL_MS ??= '1000';
  // The variables of global flags that would change what a verb prints or confirms: the server
  // sets those itself (`-o json`; `--yes` only when executing a plan).
  for (const v of ['XCTL_OUTPUT', 'XCTL_YES', 'XCTL_QUIET', 'XCTL_VERBOSE', 'XCTL_NO_PROGRESS', 'XCTL_SANDBOX'])
    delete env[v];
  return sandbox ? { ...env, ...sandbox } : env;
}

/** `xctl mcp --sandbox`: an embedded emulator, its seeded credentials handed to the verbs only. */
async function embeddedSandbox(ctx: Context): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const { startSandbox } = await import('../../sandbox/server.js');
  const sb = await startSandbox({ port: 0, host: '127.0.0.1' });
  const s = sb.seed;
  for (const secret of [s.api_secret, s.access_token, s.access_token_secret, s.client_secret]) registerSecret(secret);
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-mcp-sandbox-'));
  ctx.io.info(`xctl mcp: embedded sandbox at ${s.base_url}`);
  return {
    env: {
      XCTL_BASE_URL: s.base_url,
      XCTL_API_KEY: s.api_key,
      XCTL_API_SECRET: s.api_secret,
      XCTL_ACCESS_TOKEN: s.access_token,
      XCTL_ACCESS_TOKEN_SECRET: s.access_token_secret,
      XCTL_ACCOUNT_ID: s.account_id,
      XCTL_CONFIG_DIR: config,
      XCTL_STATE_DIR: path.join(config, 'state'),
    },
    close: async () => {
      await sb.close();
      fs.rmSync(config, { recursive: true, force: true });
    },
  };
}

/** The global flags every verb gets: JSON output and the server's own profile, account, base URL. */
function globalsOf(ctx: Context, sandbox: boolean): string[] {
  const g = ctx.globals;
  // Progress stays on: without a terminal it is a JSON line every few seconds, sent as notifications.
  const out = ['-o', 'json'];
  if (g.profile !== undefined) out.push(`--profile=${g.profile}`);
  if (g.account !== undefined) out.push(`--account=${g.account}`);
  if (g.baseUrl !== undefined && !sandbox) out.push(`--base-url=${g.baseUrl}`);
  return out;
}

function toolServer(
  ctx: Context,
  o: McpOptions,
  host: ProgramHost,
  roots: Roots,
  env: Record<string, string | undefined>,
): ToolServer {
  const guards = new Map<string, string>();
  if (o.maxRemoves !== undefined) guards.set('--max-removes', o.maxRemoves);
  if (o.maxRejectRate !== undefined) guards.set('--max-reject-rate', o.maxRejectRate);
  return {
    // The context's wire: node:http, or a test's HTTP registry.
    run: { host, env, cwd: ctx.cwd, version: ctx.version, transport: ctx.transport },
    globals: globalsOf(ctx, ctx.globals.sandbox === true),
    guards,
    allowWrites: !!o.allowWrites,
    roots,
    plans: PlanBook.create(os.tmpdir()),
  };
}

/** Serves on the context's stdin and stdout until the client goes away or the process is stopped. */
export async function serve(ctx: Context, o: McpOptions): Promise<void> {
  if (!o.programs) throw new UsageError('xctl mcp runs from the command line only (no program loader bound)');
  const roots = Roots.of(o.root, ctx.cwd);
  const program = o.programs.build();
  await o.programs.load(program, [...TOOL_GROUPS]);
  const all = toolsOf(program);
  const sandbox = ctx.globals.sandbox ? await embeddedSandbox(ctx) : undefined;
  const s = toolServer(ctx, o, o.programs, roots, verbEnv(ctx, sandbox?.env));
  const tools = all.filter((t) => t.kind === 'read' || s.allowWrites);
  const server = new Server(
    { name: 'xctl', version: ctx.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const calls = new Set<Promise<unknown>>();
  handle(server, s, { tools, all, calls, interrupt: ctx.signal });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // Input ended (`printf ... | xctl mcp`): answer every call already read, then stop.
    ctx.io.stdin.once('end', () => void drain(calls).then(() => server.close()));
    ctx.signal.addEventListener('abort', () => void server.close(), { once: true });
  });
  try {
    await server.connect(new StdioServerTransport(ctx.io.stdin, ctx.io.stdout));
    await closed;
  } finally {
    s.plans.close();
    await sandbox?.close();
  }
  if (ctx.signal.aborted) throw new InterruptedError('interrupted');
}

/** Resolves once no call is running (each answer written: one more turn after the last). */
async function drain(calls: Set<Promise<unknown>>): Promise<void> {
  do {
    await new Promise((r) => setImmediate(r));
    await Promise.allSettled([...calls]);
  } while (calls.size > 0);
  await new Promise((r) => setImmediate(r));
}

interface Listed {
  tools: ToolSpec[];
  all: ToolSpec[];
  /** The calls running (drain waits for them). */
  calls: Set<Promise<unknown>>;
  interrupt: AbortSignal;
}

function handle(server: Server, s: ToolServer, { tools, all, calls, interrupt }: Listed): void {
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { readOnlyHint: t.kind === 'read', destructiveHint: t.kind === 'write', openWorldHint: true },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    const tool = tools.find((t) => t.name === name);
    if (!tool) {
      const hidden = all.some((t) => t.name === name);
      return refusal(
        new UsageError(
          hidden ? `${name} changes the service: this server is read-only` : `unknown tool '${name}'`,
          hidden ? { hint: 'the person running the server can allow writes with `xctl mcp --allow-writes`' } : {},
        ),
      );
    }
    // The client's cancellation is the call's Ctrl-C: batches in flight finish, the journal stays.
    const stop = new AbortController();
    const cancel = () => stop.abort(new InterruptedError('cancelled by the client'));
    if (extra.signal.aborted) cancel();
    else extra.signal.addEventListener('abort', cancel, { once: true });
    const token = req.params._meta?.progressToken;
    let n = 0;
    const onStderrLine =
      token === undefined
        ? undefined
        : (line: string) => {
            if (!line.trim()) return;
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: ++n, message: line.slice(0, 500) },
              })
              .catch(() => {});
          };
    const signal = AbortSignal.any([stop.signal, interrupt]);
    const call = callTool(s, tool, req.params.arguments ?? {}, { signal, onStderrLine });
    calls.add(call);
    return call.finally(() => calls.delete(call));
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({
    contents: [{ uri: req.params.uri, mimeType: 'text/markdown', text: readResource(req.params.uri, all) }],
  }));
}
