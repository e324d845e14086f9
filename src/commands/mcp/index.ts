// `xctl mcp`: a Model Context Protocol server on stdin/stdout whose tools are xctl's own verbs
// (docs/mcp.md). The SDK is loaded only when it serves.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { declareOn } from '../define.js';
import { runtimeOf } from '../runtime.js';
import type { McpOptions } from './server.js';

export function register(cmd: Command, _operands?: string[], runF = mcpServe): void {
  declareOn(cmd, {
    options: [
      [
        '--allow-writes',
        'offer the tools that change the service; each takes a plan first and executes only with its plan_id',
      ],
      {
        flags: '--root <dir>',
        description: 'a folder whose files tools may read (repeatable); none: every file is refused',
        repeatable: true,
      },
      [
        '--max-removes <N|P%>',
        'the removal guard of every sync the tools plan (as `audiences sync --max-removes`; default 10% of the audience)',
      ],
      [
        '--max-reject-rate <rate>',
        'the reject gate of every upload and sync (as `audiences upload --max-reject-rate`)',
      ],
    ],
    helpAfter:
      '\n`xctl mcp --sandbox` starts an embedded sandbox and points the tools at it (no account needed).\n' +
      'The tools use the active profile; no tool returns a credential.\n',
    run: (ctx, o) => runF(ctx, { ...o, programs: runtimeOf(cmd).programs }),
  });
}

/** Serves until the client closes stdin or the process is interrupted. */
export async function mcpServe(ctx: Context, o: McpOptions): Promise<void> {
  // The SDK (2.7 MB of scripts) only when serving: `completion` and `--help` load every group.
  const { serve } = await import('./server.js');
  await serve(ctx, o);
}
