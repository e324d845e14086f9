// `xctl mcp` in-process: JSON-RPC lines on stdin, the exact answers on stdout, the verbs' HTTP
// on a registry; and its parts (the tools of the tree, a call's command line, the roots, the
// plan guard) as functions.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram, loadGroups } from '../../../src/program.js';
import { commandLine } from '../../../src/commands/mcp/arguments.js';
import { guardedTransport, plannedRequest, sentRequest } from '../../../src/commands/mcp/plans.js';
import { Roots } from '../../../src/commands/mcp/roots.js';
import { serve } from '../../../src/commands/mcp/server.js';
import { TOOL_GROUPS, toolsOf, type ToolSpec } from '../../../src/commands/mcp/tools.js';
import type { Transport, TransportRequest } from '../../../src/core/transport.js';
import { HttpRegistry, route, text } from '../../helpers/http-registry.js';
import { tempDir } from '../../helpers/cli.js';
import { useTestContexts } from '../../helpers/test-context.js';

const tc = useTestContexts();
const programs = { build: () => buildProgram('0.0.0-test'), load: loadGroups };

async function tools(): Promise<ToolSpec[]> {
  const program = buildProgram('0');
  await loadGroups(program, [...TOOL_GROUPS]);
  return toolsOf(program);
}
const byName = (all: ToolSpec[], name: string) => all.find((t) => t.name === name)!;

/** JSON-RPC lines a client sends: initialize, initialized, then `requests` (ids from 2). */
function session(requests: Array<[method: string, params: unknown]>): string {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const lines = [init, { jsonrpc: '2.0', method: 'notifications/initialized' }];
  requests.forEach(([method, params], i) => lines.push({ jsonrpc: '2.0', id: i + 2, method, params } as never));
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** The answers on stdout by id (the initialize answer aside). */
function answers(stdout: string): Map<number, unknown> {
  const out = new Map<number, unknown>();
  for (const line of stdout.split('\n').filter(Boolean)) {
    const m = JSON.parse(line) as { id?: number };
    if (m.id !== undefined && m.id > 1) out.set(m.id, m);
  }
  return out;
}

describe('xctl mcp (the server in-process)', () => {
  it('answers every call read from stdin, then stops: a read exact to the digit, a refusal in the CLI words', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/12/accounts/acct1/campaigns'),
      text(
        '{"data":[{"id":"c1","name":"Spring","daily_budget_amount_local_micro":9007199254740993}],"next_cursor":null}',
        200,
        'application/json',
      ),
    );
    const t = tc({
      transport: http,
      stdin: session([
        ['tools/call', { name: 'ads_campaigns_list', arguments: { fields: 'x' } }],
        ['tools/call', { name: 'ads_campaigns_list', arguments: { count: '0' } }],
        ['tools/call', { name: 'ads_campaigns_list', arguments: {} }],
        ['tools/call', { name: 'audiences_sync', arguments: {} }],
        ['tools/call', { name: 'auth_token', arguments: {} }],
      ]),
    });
    await serve(t.ctx, { root: [], programs });
    http.verify();
    const got = answers(t.stdout());
    const textOf = (id: number) =>
      (got.get(id) as { result: { content: Array<{ text: string }>; isError?: boolean } }).result;
    expect(textOf(2)).toEqual({
      content: [
        { type: 'text', text: '{"error":{"type":"UsageError","message":"unknown option \'--fields\'","exit_code":2}}' },
      ],
      isError: true,
    });
    expect(textOf(3).content[0]!.text).toBe(
      '{"error":{"type":"UsageError","message":"--count must be between 1 and 1000 (got \\"0\\")","code":"INVALID_PARAMETER","parameter":"count","exit_code":2}}',
    );
    expect(textOf(4)).toEqual({
      content: [
        {
          type: 'text',
          text: '[\n  {\n    "id": "c1",\n    "name": "Spring",\n    "daily_budget_amount_local_micro": 9007199254740993\n  }\n]',
        },
      ],
    });
    expect(textOf(5).content[0]!.text).toBe(
      '{"error":{"type":"UsageError","message":"audiences_sync changes the service: this server is read-only","hint":"the person running the server can allow writes with `xctl mcp --allow-writes`","exit_code":2}}',
    );
    expect(textOf(6).content[0]!.text).toBe(
      '{"error":{"type":"UsageError","message":"unknown tool \'auth_token\'","exit_code":2}}',
    );
    expect(http.requests).toHaveLength(1); // the refusals sent nothing
  });

  it('with --allow-writes: a write called without plan_id plans (its dry run) and sends nothing', async () => {
    const http = new HttpRegistry().register(
      route('DELETE', '/12/accounts/acct1/campaigns/c1'),
      text('{"data":{"id":"c1","deleted":true}}', 200, 'application/json'),
    );
    const first = tc({
      transport: http,
      stdin: session([['tools/call', { name: 'ads_campaigns_delete', arguments: { campaign_id: 'c1' } }]]),
    });
    await serve(first.ctx, { root: [], programs, allowWrites: true });
    const plan = JSON.parse(
      (answers(first.stdout()).get(2) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text,
    );
    expect(plan).toMatchObject({
      tool: 'ads_campaigns_delete',
      plan: { dry_run: true, method: 'DELETE', url: 'https://ads-api.x.com/12/accounts/acct1/campaigns/c1' },
    });
    expect(plan.plan_id).toMatch(/^[\w-]{12}$/);
    expect(http.requests).toHaveLength(0);
  });
});

describe('the tools of the tree', () => {
  it('reads and writes as their methods say; withheld flags and auth absent', async () => {
    const all = await tools();
    expect(byName(all, 'ads_campaigns_list').kind).toBe('read');
    expect(byName(all, 'ads_campaigns_delete').kind).toBe('write');
    expect(byName(all, 'ads_line-items_update').kind).toBe('write');
    expect(byName(all, 'audiences_sync_plan')).toMatchObject({ kind: 'read', forced: '--plan', planKind: 'sync' });
    expect(byName(all, 'audiences_sync')).toMatchObject({ kind: 'write', planKind: 'sync' });
    expect(byName(all, 'audiences_upload')).toMatchObject({ kind: 'write', planKind: 'upload' });
    expect(byName(all, 'webhooks_list').kind).toBe('read');
    expect(byName(all, 'ads_stats_job_wait').kind).toBe('read');
    expect(all.some((t) => /^(auth|config|request)/.test(t.name))).toBe(false);
    expect(byName(all, 'sandbox_state').params).toEqual([]);
    const sync = Object.keys(byName(all, 'audiences_sync').inputSchema.properties);
    for (const k of ['max_removes', 'max_reject_rate', 'out', 'apply', 'plan', 'state_dir', 'journal'])
      expect(sync).not.toContain(k);
    expect(byName(all, 'audiences_sync').guardFlags).toEqual(['--max-removes', '--max-reject-rate']);
    const list = byName(all, 'ads_campaigns_list').inputSchema.properties;
    expect(list.with_deleted).toEqual({ type: 'boolean', description: 'include deleted records; default false' });
  });

  it("a call's arguments become only the flags and positionals they name", async () => {
    const all = await tools();
    const upload = byName(all, 'audiences_upload');
    expect(
      commandLine(upload, { audience_id: 'a1', file: '-x.csv', type: 'email', batch_size: 100, column: ['email=E'] }),
    ).toEqual({
      argv: ['audiences', 'upload', '--type=email', '--column=email=E', '--batch-size=100', '--', 'a1', '-x.csv'],
      paths: [{ param: upload.params.find((p) => p.key === 'file'), value: '-x.csv' }],
    });
    const list = byName(all, 'ads_campaigns_list');
    expect(commandLine(list, { with_deleted: false, q: '--all' }).argv).toEqual([
      'ads',
      'campaigns',
      'list',
      '--no-with-deleted',
      '--q=--all',
    ]);
    expect(() => commandLine(list, { base_url: 'http://x' })).toThrow("unknown option '--base-url'");
    expect(() => commandLine(list, { with_deleted: 'yes' })).toThrow('--with-deleted takes true or false');
    expect(commandLine(byName(all, 'audiences_sync_plan'), {}).argv).toEqual(['audiences', 'sync', '--plan']);
  });
});

describe('--root', () => {
  it('confines files to the roots: links out, parents, absolute paths and stdin refused', () => {
    const dir = tempDir('xctl-roots-');
    try {
      fs.mkdirSync(path.join(dir, 'in'));
      fs.writeFileSync(path.join(dir, 'in', 'a.csv'), 'x');
      fs.writeFileSync(path.join(dir, 'secret'), 'x');
      fs.symlinkSync(path.join(dir, 'secret'), path.join(dir, 'in', 'link'));
      fs.symlinkSync(path.join(dir, 'in', 'a.csv'), path.join(dir, 'in', 'inside-link'));
      const roots = Roots.of(['in'], dir);
      const real = fs.realpathSync(path.join(dir, 'in'));
      expect(roots.confine('a.csv', '<file>')).toBe(path.join(real, 'a.csv'));
      expect(roots.confine('inside-link', '<file>')).toBe(path.join(real, 'a.csv'));
      expect(roots.confine('new.csv', '--file')).toBe(path.join(real, 'new.csv'));
      for (const v of ['link', '../secret', path.join(dir, 'secret'), '/etc/passwd'])
        expect(() => roots.confine(v, '<file>'), v).toThrow(/outside the folders this server may read/);
      expect(() => roots.confine('-', '<file>')).toThrow('<file>: stdin is the MCP channel');
      expect(() => Roots.of([], dir).confine('a.csv', '--file')).toThrow(
        '--file: files are refused: the server was started without --root',
      );
      expect(() => Roots.of(['nowhere'], dir)).toThrow('--root nowhere: no such folder');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the plan guard', () => {
  const req = (method: string, url: string, body?: string, type?: string): TransportRequest => ({
    method,
    url: new URL(url),
    headers: type ? { 'content-type': type } : {},
    body,
    headersTimeoutMs: 1,
    bodyTimeoutMs: 1,
  });

  it('a dry-run line and the request it shows reduce to the same; another body does not', () => {
    const line =
      '{"dry_run":true,"method":"PUT","url":"https://ads-api.x.com/12/accounts/a/campaigns/c?x=1","params":{"name":"N","entity_status":"PAUSED"}}';
    const form = 'application/x-www-form-urlencoded;charset=UTF-8';
    expect(plannedRequest(line)).toBe(
      sentRequest(
        req('PUT', 'https://ads-api.x.com/12/accounts/a/campaigns/c?x=1', 'entity_status=PAUSED&name=N', form),
      ),
    );
    expect(plannedRequest(line)).not.toBe(
      sentRequest(
        req('PUT', 'https://ads-api.x.com/12/accounts/a/campaigns/c?x=1', 'entity_status=ACTIVE&name=N', form),
      ),
    );
    expect(plannedRequest('{"id":"1"}')).toBeUndefined();
  });

  it('lets through only what the plan allows, and refuses the rest unsent', async () => {
    const sent: string[] = [];
    const inner: Transport = {
      send: async (r) => {
        sent.push(r.method);
        return { status: 200, headers: {}, body: undefined as never, text: async () => '' };
      },
    };
    const g = guardedTransport(inner, ['PUT /ok'], (r) => `${r.method} ${r.url.pathname}`);
    await g.send(req('PUT', 'https://h/ok'));
    await g.send(req('PUT', 'https://h/ok')); // a retry of the same request
    await g.send(req('GET', 'https://h/lookup')); // a read: the verb's own look-up
    await expect(g.send(req('DELETE', 'https://h/ok'))).rejects.toThrow(
      'refused: DELETE /ok is not in the plan (nothing beyond the plan is sent)',
    );
    await expect(g.send(req('POST', 'https://h/ok'))).rejects.toThrow('is not in the plan');
    expect(sent).toEqual(['PUT', 'PUT', 'GET']);
  });
});
