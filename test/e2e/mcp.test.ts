// `xctl mcp` driven by the MCP SDK's own client over stdio (StdioClientTransport), against a real
// sandbox: the tools and their schemas against the CLI's flags, a read (the same JSON as the CLI),
// a bad input refused in the CLI's words, a write refused without --allow-writes, an audience sync
// planned then executed (exact members), a removal beyond the guard refused, a cancelled upload
// resumed, and no secret in any message.
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempDir, useTestSandbox } from '../helpers/cli.js';
import { digests, emails, range, sandboxMembers, seedAudience, writeLines } from '../helpers/audiences.js';
import { buildProgram, loadGroups } from '../../src/program.js';

const t = useTestSandbox();

interface Server {
  client: Client;
  /** Every message the server sent, and its stderr. */
  seen: string[];
  call(
    name: string,
    args?: Record<string, unknown>,
    o?: { signal?: AbortSignal; onprogress?: (p: { message?: string }) => void },
  ): Promise<Answer>;
  close(): Promise<void>;
}

interface Answer {
  isError: boolean;
  texts: string[];
  /** The first text as JSON. */
  json: Record<string, unknown> & { error?: { message: string; exit_code: number }; plan_id?: string };
}

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** `xctl mcp ...flags` on stdio, pointed at the test's sandbox, with the SDK's client connected. */
async function mcp(flags: string[], env: Record<string, string> = t.env): Promise<Server> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) clean[k] = v;
  delete clean.DBUS_SESSION_BUS_ADDRESS;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...flags],
    env: { ...clean, ...env, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  const seen: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => seen.push(d.toString('utf8')));
  const client = new Client({ name: 'xctl-e2e', version: '1.0.0' });
  await client.connect(transport);
  const onmessage = transport.onmessage!;
  transport.onmessage = (m) => {
    seen.push(JSON.stringify(m));
    onmessage(m);
  };
  const s: Server = {
    client,
    seen,
    async call(name, args = {}, o = {}) {
      const r = await client.callTool({ name, arguments: args }, undefined, {
        signal: o.signal,
        onprogress: o.onprogress,
        timeout: 600_000,
      });
      const texts = (r.content as Array<{ text: string }>).map((c) => c.text);
      return { isError: r.isError === true, texts, json: JSON.parse(texts[0]!) };
    },
    close: () => client.close(),
  };
  servers.push(s);
  return s;
}

/** A resource's text (a blob would be base64). */
const textOf = (c: unknown) => (c && typeof c === 'object' && 'text' in c ? String(c.text) : '');

/** The command of the tool's words (`ads_line-items_list` -> ads line-items list), in-process. */
function commandOf(program: Command, name: string): Command {
  let cmd = program;
  for (const w of name.replace(/_plan$/, '').split('_')) cmd = cmd.commands.find((c) => c.name() === w)!;
  return cmd;
}

/** Flags a tool never takes (tools.ts WITHHELD), and the globals it may take. */
const WITHHELD = [
  '--out',
  '--rejects',
  '--journal',
  '--state-dir',
  '--from-upload',
  '--max-removes',
  '--max-reject-rate',
  '--plan',
  '--apply',
  '--dry-run',
  '--yes',
  '--schema',
  '--restart',
  '--concurrency',
  '--help',
];

describe('xctl mcp', () => {
  let dir: string;
  let ro: Server;
  let rw: Server;
  beforeAll(async () => {
    dir = tempDir('xctl-mcp-root-');
    t.dirs.push(dir);
    ro = await mcp(['--root', dir]);
    // Progress lines every 100 ms (the server's own default is a second).
    rw = await mcp(['--allow-writes', '--root', dir], { ...t.env, XCTL_PROGRESS_INTERVAL_MS: '100' });
  }, 60_000);

  it('lists a tool for each offered verb, its schema the CLI flags of that verb', async () => {
    const { tools } = await rw.client.listTools();
    const program = buildProgram('0');
    await loadGroups(program, ['ads', 'audiences', 'webhooks', 'activity', 'sandbox']);
    const names = tools.map((x) => x.name);
    for (const n of [
      'ads_accounts_list',
      'ads_campaigns_list',
      'ads_line-items_get',
      'ads_targeting_list',
      'ads_stats_query',
      'audiences_list',
      'audiences_get',
      'audiences_inspect',
      'audiences_sync_plan',
      'audiences_apply_plan',
      'audiences_sync',
      'webhooks_list',
      'webhooks_doctor',
      'activity_subscriptions_list',
      'sandbox_state',
    ])
      expect(names).toContain(n);
    expect(names.some((n) => n.startsWith('auth'))).toBe(false);
    for (const tool of tools) {
      const cmd = commandOf(program, tool.name);
      const props = tool.inputSchema.properties as Record<
        string,
        { type: unknown; enum?: string[]; items?: { enum?: string[] } }
      >;
      const expected = new Set(['plan_id', 'account']);
      for (const a of cmd.registeredArguments) {
        const key = a.name().replace(/-/g, '_');
        expected.add(key);
        expect(props[key]?.type, `${tool.name} <${a.name()}>`).toBe(a.variadic ? 'array' : 'string');
      }
      for (const o of cmd.options) {
        if (o.hidden || WITHHELD.includes(o.long!)) continue;
        const key = o.long!.replace(/^--(no-)?/, '').replace(/-/g, '_');
        expected.add(key);
        const p = props[key];
        expect(p, `${tool.name} ${o.long}`).toBeDefined();
        const many = o.variadic || Array.isArray(o.defaultValue);
        const type = many ? 'array' : o.optional ? ['string', 'boolean'] : o.required ? 'string' : 'boolean';
        expect(p!.type, `${tool.name} ${o.long}`).toEqual(type);
        if (o.argChoices) expect(many ? p!.items?.enum : p!.enum, `${tool.name} ${o.long}`).toEqual(o.argChoices);
      }
      for (const k of Object.keys(props)) expect(expected.has(k), `${tool.name}: ${k} is no flag`).toBe(true);
      expect(tool.inputSchema.additionalProperties).toBe(false);
    }
    // The read-only server lists no write.
    const roNames = (await ro.client.listTools()).tools.map((x) => x.name);
    expect(roNames).not.toContain('audiences_sync');
    expect(roNames).toContain('audiences_sync_plan');
    expect(roNames.length).toBeLessThan(names.length);
  });

  it('a read answers the JSON `-o json` prints; a bad value is refused in the CLI words', async () => {
    const cli = await t.run(['ads', 'campaigns', 'list', '-o', 'json']);
    const r = await ro.call('ads_campaigns_list');
    expect(r.isError).toBe(false);
    expect(r.texts[0]).toBe(cli.stdout.trim());

    const bad = await t.run(['ads', 'campaigns', 'list', '--count', '5000', '-o', 'json']);
    expect(bad.code).toBe(2);
    const refused = await ro.call('ads_campaigns_list', { count: '5000' });
    expect(refused.isError).toBe(true);
    expect(refused.json.error).toEqual(JSON.parse(bad.stderr).error);

    const unknown = await ro.call('ads_campaigns_list', { base_url: 'http://evil.example' });
    expect(unknown.json.error?.message).toBe("unknown option '--base-url'");
  });

  it('refuses a write without --allow-writes, and files outside --root', async () => {
    const id = seedAudience(t, 'mcpro');
    writeLines(dir, 'ro.txt', emails(range(0, 10)));
    const r = await ro.call('audiences_sync', { audience_id: id, file: 'ro.txt', type: 'email' });
    expect(r.isError).toBe(true);
    expect(r.json.error?.message).toBe('audiences_sync changes the service: this server is read-only');
    expect((await sandboxMembers(t, id)).requests).toBe(0);

    fs.symlinkSync('/etc/passwd', path.join(dir, 'link.txt'));
    for (const file of ['link.txt', '../x.txt', '/etc/passwd', '-']) {
      const out = await ro.call('audiences_inspect', { file, type: 'email' });
      expect(out.isError, file).toBe(true);
      expect(out.json.error?.exit_code).toBe(2);
    }
  });

  it('plans a sync, executes the plan: exact members; a removal beyond the guard is refused', async () => {
    const id = seedAudience(t, 'mcpsync');
    const want = emails(range(0, 300));
    writeLines(dir, 'all.txt', want);
    const plan = await rw.call('audiences_sync', { audience_id: id, file: 'all.txt', type: 'email', batch_size: 100 });
    expect(plan.isError, plan.texts.join()).toBe(false);
    expect(plan.json.plan).toMatchObject({ adds: 300, removes: 0 });
    expect((await sandboxMembers(t, id)).requests).toBe(0); // planning sent nothing
    const done = await rw.call('audiences_sync', { plan_id: plan.json.plan_id });
    expect(done.isError, done.texts.join()).toBe(false);
    expect((await sandboxMembers(t, id)).members).toEqual({ email: digests(want) });
    // A plan is spent once executed.
    const again = await rw.call('audiences_sync', { plan_id: plan.json.plan_id });
    expect(again.json.error?.message).toMatch(/names no plan of this server/);

    writeLines(dir, 'half.txt', want.slice(0, 150));
    const cut = await rw.call('audiences_sync', { audience_id: id, file: 'half.txt', type: 'email' });
    expect(cut.isError).toBe(true);
    expect(cut.json.error?.message).toMatch(
      /would remove 150 of the audience's 300 members \(50%\), more than --max-removes 10%/,
    );
    const lifted = await rw.call('audiences_sync', {
      audience_id: id,
      file: 'half.txt',
      type: 'email',
      max_removes: '100%',
    });
    expect(lifted.json.error?.message).toBe("unknown option '--max-removes'");
    expect((await sandboxMembers(t, id)).members).toEqual({ email: digests(want) });
  });

  it('a cancelled upload keeps its journal; the same plan resumes it to the exact members', async () => {
    const id = seedAudience(t, 'mcpupload');
    const want = emails(range(0, 3000));
    writeLines(dir, 'up.txt', want);
    const args = { audience_id: id, file: 'up.txt', type: 'email', batch_size: 100 };
    const plan = await rw.call('audiences_upload', args);
    expect(plan.json.plan).toMatchObject({ sent: 3000, batches: 30, acknowledged: 0 });
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 150, match: '/users$' });
    const stop = new AbortController();
    const progress: string[] = [];
    const cancelled = rw.call(
      'audiences_upload',
      { plan_id: plan.json.plan_id },
      { signal: stop.signal, onprogress: (p) => progress.push(p.message ?? '') },
    );
    let settled = false;
    void cancelled.finally(() => (settled = true)).catch(() => {});
    while (!settled && ((await sandboxMembers(t, id)).requests < 4 || progress.length === 0))
      await new Promise((r) => setTimeout(r, 20));
    expect(settled, 'the upload ended before it was cancelled').toBe(false);
    stop.abort();
    expect(progress[0]).toMatch(/^\{"progress":\{"read":\d+,"acknowledged":\d+/);
    await expect(cancelled).rejects.toThrow();
    await t.admin('DELETE', '/_sandbox/faults');
    let done: Answer;
    // The cancelled run drains its batches in flight and saves the journal (holding its lock meanwhile: exit 75).
    do done = await rw.call('audiences_upload', { plan_id: plan.json.plan_id });
    while (done.json.error?.exit_code === 75);
    expect(done.isError, done.texts.join()).toBe(false);
    expect(Number(done.json.resumed_batches)).toBeGreaterThan(0);
    expect(Number(done.json.resumed_batches)).toBeLessThan(30);
    expect((await sandboxMembers(t, id)).members).toEqual({ email: digests(want) });
  }, 120_000);

  it('a cancelled sync: a new plan finishes it, exact members', async () => {
    const id = seedAudience(t, 'mcpsynccancel');
    const want = emails(range(0, 3000));
    writeLines(dir, 'sc.txt', want);
    const plan = await rw.call('audiences_sync', { audience_id: id, file: 'sc.txt', type: 'email', batch_size: 100 });
    expect(plan.isError, plan.texts.join()).toBe(false);
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 150, match: '/users$' });
    const stop = new AbortController();
    const cancelled = rw.call('audiences_sync', { plan_id: plan.json.plan_id }, { signal: stop.signal });
    let settled = false;
    void cancelled.finally(() => (settled = true)).catch(() => {});
    while (!settled && (await sandboxMembers(t, id)).requests < 4) await new Promise((r) => setTimeout(r, 20));
    expect(settled, 'the sync ended before it was cancelled').toBe(false);
    stop.abort();
    await expect(cancelled).rejects.toThrow();
    await t.admin('DELETE', '/_sandbox/faults');
    // The saved plan no longer matches the snapshot (part of it was sent): sync's own words.
    let stale: Answer;
    do stale = await rw.call('audiences_sync', { plan_id: plan.json.plan_id });
    while (stale.json.error?.exit_code === 75);
    expect(stale.json.error?.message).toMatch(/^the snapshot of this audience changed since the plan was saved/);
    const again = await rw.call('audiences_sync', { audience_id: id, file: 'sc.txt', type: 'email', batch_size: 100 });
    expect(again.isError, again.texts.join()).toBe(false);
    expect(again.texts.join('\n')).toMatch(/interrupted sync/);
    const done = await rw.call('audiences_sync', { plan_id: again.json.plan_id });
    expect(done.isError, done.texts.join()).toBe(false);
    expect((await sandboxMembers(t, id)).members).toEqual({ email: digests(want) });
  }, 120_000);

  it('an upload whose file changed since its plan sends nothing beyond the plan', async () => {
    const id = seedAudience(t, 'mcpchanged');
    writeLines(dir, 'changed.txt', emails(range(0, 100)));
    const plan = await rw.call('audiences_upload', { audience_id: id, file: 'changed.txt', type: 'email' });
    expect(plan.isError, plan.texts.join()).toBe(false);
    writeLines(dir, 'changed.txt', emails(range(0, 101)));
    const r = await rw.call('audiences_upload', { plan_id: plan.json.plan_id });
    expect(r.isError).toBe(true);
    expect(r.texts.join('\n')).toContain('is not in the plan (nothing beyond the plan is sent)');
    expect((await sandboxMembers(t, id)).requests).toBe(0);
  });

  it('apply: plans, executes the plan; command sources, sources outside the roots and own guards refused', async () => {
    writeLines(dir, 'fleet.csv', ['email', ...emails(range(0, 40))]);
    const yaml = (audience: string) => `defaults:\n  type: email\naudiences:\n  - name: MCP fleet\n${audience}`;
    fs.writeFileSync(path.join(dir, 'fleet.yaml'), yaml('    source: fleet.csv\n'));
    const plan = await rw.call('audiences_apply', { file: 'fleet.yaml' });
    expect(plan.isError, plan.texts.join()).toBe(false);
    const done = await rw.call('audiences_apply', { plan_id: plan.json.plan_id });
    expect(done.isError, done.texts.join()).toBe(false);
    const listed = JSON.parse((await rw.call('audiences_list', { q: 'MCP fleet' })).texts[0]!) as Array<{ id: string }>;
    expect((await sandboxMembers(t, listed[0]!.id)).members).toEqual({ email: digests(emails(range(0, 40))) });

    const marker = path.join(dir, 'ran');
    for (const [name, audience, words] of [
      ['shell.yaml', `    command: touch ${marker}\n`, 'has a command source: xctl mcp runs no shell command'],
      ['out.yaml', '    source: ../elsewhere.csv\n', 'is outside the folders this server may read'],
      [
        'guard.yaml',
        '    source: fleet.csv\n    max_removes: 100%\n',
        "sets max_removes: under xctl mcp the guards are the server's",
      ],
    ] as const) {
      fs.writeFileSync(path.join(dir, name), yaml(audience));
      const r = await rw.call('audiences_apply_plan', { file: name });
      expect(r.isError, name).toBe(true);
      expect(r.json.error?.message).toContain(words);
    }
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('a write beyond its plan is never sent: the plan names exactly what executes', async () => {
    const list = JSON.parse((await rw.call('ads_campaigns_list')).texts[0]!) as Array<{ id: string; name: string }>;
    const camp = list[0]!;
    const plan = await rw.call('ads_campaigns_update', { campaign_id: camp.id, name: 'planned' });
    expect(plan.json.plan).toMatchObject({ dry_run: true, method: 'PUT', params: { name: 'planned' } });
    const other = await rw.call('ads_campaigns_update', { plan_id: plan.json.plan_id, name: 'other' });
    expect(other.json.error?.message).toMatch(/arguments differ from those plan/);
    const done = await rw.call('ads_campaigns_update', { plan_id: plan.json.plan_id });
    expect(done.isError, done.texts.join()).toBe(false);
    expect(done.json.name).toBe('planned');
    // A write whose verb looks something up first (the funding instrument's currency): reads pass.
    const create = await rw.call('ads_campaigns_create', {
      funding_instrument_id: (list[0] as unknown as { funding_instrument_id: string }).funding_instrument_id,
      name: 'MCP money',
      daily_budget: '30.50',
    });
    expect(create.json.plan).toMatchObject({ params: { daily_budget_amount_local_micro: '30500000' } });
    const created = await rw.call('ads_campaigns_create', { plan_id: create.json.plan_id });
    expect(created.isError, created.texts.join()).toBe(false);
    expect(created.texts[0]).toContain('"daily_budget_amount_local_micro": 30500000');
    // Executing a plan is the confirmation a delete asks for (--yes); the plan alone deletes nothing.
    const del = await rw.call('ads_campaigns_delete', { campaign_id: camp.id });
    expect(del.json.plan).toMatchObject({ dry_run: true, method: 'DELETE' });
    expect(t.sb.app.state.collection('campaigns').get(camp.id)).toMatchObject({ deleted: false });
    const gone = await rw.call('ads_campaigns_delete', { plan_id: del.json.plan_id });
    expect(gone.isError, gone.texts.join()).toBe(false);
    expect(t.sb.app.state.collection('campaigns').get(camp.id)).toMatchObject({ deleted: true });
  });

  it('a stats job: planned, created, its wait reported as progress; its 64-bit id exact', async () => {
    const li = (JSON.parse((await ro.call('ads_line-items_list')).texts[0]!) as Array<{ id: string }>)[0]!.id;
    const nyDate = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(ms);
    const args = {
      entity: 'LINE_ITEM',
      ids: li,
      start: nyDate(t.sb.app.clock.now() - 48 * 3_600_000),
      end: nyDate(t.sb.app.clock.now()),
      granularity: 'TOTAL',
      metric_groups: 'ENGAGEMENT',
    };
    const plan = await rw.call('ads_stats_job_create', args);
    expect(plan.json.plan).toMatchObject({ dry_run: true, method: 'POST' });
    const job = await rw.call('ads_stats_job_create', { plan_id: plan.json.plan_id });
    expect(job.isError, job.texts.join()).toBe(false);
    // The id as printed, digit for digit (beyond 2^53: JSON.parse of the answer would round it).
    const id = /"id": "?(\d{16,})/.exec(job.texts[0]!)?.[1];
    expect(id, job.texts[0]).toBeDefined();
    const progress: string[] = [];
    const done = await rw.call(
      'ads_stats_job_wait',
      { job_id: id },
      { onprogress: (p) => progress.push(p.message ?? '') },
    );
    expect(done.isError, done.texts.join()).toBe(false);
    expect(done.texts[0]).toContain(`"${id}"`);
    expect(done.json.status).toBe('SUCCESS');
    expect(progress[0]).toMatch(new RegExp(`^job ${id}: (QUEUED|PROCESSING); checking again in`));
  });

  it('serves the reference and the limits; no secret in any message', async () => {
    const ref = await rw.client.readResource({ uri: 'xctl://reference' });
    expect(textOf(ref.contents[0])).toContain('## ads_campaigns_list (read)');
    const limits = await rw.client.readResource({ uri: 'xctl://limits' });
    expect(textOf(limits.contents[0])).toContain('2500 operations');
    await rw.call('sandbox_state');
    // `sandbox state --out` writes the whole state, credentials included: no tool takes it.
    const out = await rw.call('sandbox_state', { out: '-' });
    expect(out.json.error?.message).toBe("unknown option '--out'");
    const s = t.sb.seed;
    const secrets = [s.api_secret, s.access_token, s.access_token_secret, s.client_secret];
    const all = [...ro.seen, ...rw.seen].join('\n');
    expect(all.length).toBeGreaterThan(10_000);
    for (const secret of secrets) expect(all.includes(secret), 'a secret in a message').toBe(false);
  });

  it('--sandbox starts an embedded sandbox and points the tools at it', async () => {
    const config = tempDir();
    t.dirs.push(config);
    const own = await mcp(['--sandbox'], { XCTL_CONFIG_DIR: config });
    const r = await own.call('ads_accounts_list');
    expect(r.isError, r.texts.join()).toBe(false);
    expect((r.json as unknown as Array<{ name: string }>)[0]!.name).toBe('Sandbox Ads Account');
    expect(own.seen.join('')).toContain('xctl mcp: embedded sandbox at http://127.0.0.1:');
  });
});
