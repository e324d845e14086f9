// `xctl sandbox ...` tested where the verbs live: flags -> options through runF, the admin
// requests each run function sends (HTTP registry), their exact output, and the refusals made
// before anything is sent or started. A real sandbox (the wire, logs that never hold a
// credential, --follow, --state saved on exit) is in test/e2e/sandbox.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { register as registerTrigger, sandboxTrigger } from '../../../src/commands/sandbox/trigger.js';
import { register as registerFaults, sandboxFaults } from '../../../src/commands/sandbox/faults.js';
import { register as registerLogs, sandboxLogs } from '../../../src/commands/sandbox/logs.js';
import { register as registerState, sandboxState } from '../../../src/commands/sandbox/state.js';
import { register as registerStart, sandboxStart } from '../../../src/commands/sandbox/start.js';
import { register as registerClock } from '../../../src/commands/sandbox/clock.js';
import { buildProgram, loadGroups } from '../../../src/program.js';
import { exitOf } from '../../helpers/exit-of.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { testContext, type TestContext } from '../../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

/** `xctl sandbox VERB --help` as an 80-column terminal shows it. */
async function helpOf(verb: string): Promise<string> {
  const program = buildProgram('0.0.0-test');
  await loadGroups(program, ['sandbox']);
  const sandbox = program.commands.find((c) => c.name() === 'sandbox')!;
  const cmd: Command = sandbox.commands.find((c) => c.name() === verb)!;
  let out = '';
  cmd.configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (out += s) });
  cmd.configureHelp({ ...cmd.configureHelp(), helpWidth: 80 });
  cmd.outputHelp();
  return out;
}

const SANDBOX = { XCTL_BASE_URL: 'http://127.0.0.1:9' };
/** `sandbox start`'s defaults, as commander hands them to the run function. */
const START = { port: '0', host: '127.0.0.1', clock: 'real', log: true };

describe('sandbox trigger', () => {
  it('flags -> options', async () => {
    t = testContext();
    expect(await t.optionsOf(registerTrigger, ['trigger', 'news.new', '--user-id', '7', '--data', '{}'])).toEqual({
      eventType: 'news.new',
      userId: '7',
      data: '{}',
    });
  });

  it('refuses an unknown event type (exit 2), the hint listing the valid ones; sends nothing', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http, env: SANDBOX });
    const err: unknown = await sandboxTrigger(t.ctx, { eventType: 'nope.event' }).catch((e: unknown) => e);
    const e = err as { exitCode: number; message: string; hint?: string };
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(`<event-type> must be one of the platform's event types (got "nope.event")`);
    expect(e.hint).toMatch(/^event types: profile\.update\.bio .*block\.unblock/);
    for (const o of [{ userId: 'me' }, { data: '[1]' }, { data: '{' }])
      expect((await exitOf(sandboxTrigger(t.ctx, { eventType: 'news.new', ...o }))).code).toBe(2);
    expect(http.requests).toEqual([]);
  });

  it('lists the event types in its help, within 80 columns', async () => {
    const help = await helpOf('trigger');
    expect(help).toMatch(/Event types:\n {2}profile\.update\.bio /);
    for (const ev of ['news.new', 'dm.indicate_typing', 'block.unblock']) expect(help).toContain(ev);
    for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('POSTs the event with the app key; says when nobody receives it, and why', async () => {
    const http = new HttpRegistry()
      .register(route('POST', '/_sandbox/events'), json({ data: { event_uuid: 'u1', deliveries: 0 } }))
      .register(
        route('POST', '/_sandbox/events'),
        json({ data: { event_uuid: 'u2', deliveries: 0, unreached: ['subscription 5 matches but has no webhook'] } }),
      );
    t = testContext({ transport: http, env: SANDBOX, globals: { output: 'jsonl' } });
    await sandboxTrigger(t.ctx, { eventType: 'profile.update.bio', userId: '42', data: '{"after":"x"}' });
    await sandboxTrigger(t.ctx, { eventType: 'profile.update.bio' });
    expect(http.requests[0]!.json()).toEqual({
      event_type: 'profile.update.bio',
      user_id: '42',
      payload: { after: 'x' },
    });
    expect(http.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('test-api-key:test-api-secret').toString('base64')}`,
    );
    expect(t.stdout()).toBe(
      '{"event_uuid":"u1","deliveries":0}\n' +
        '{"event_uuid":"u2","deliveries":0,"unreached":["subscription 5 matches but has no webhook"]}\n',
    );
    expect(t.stderr()).toBe(
      'deliveries 0: no subscription matches; run `xctl webhooks listen --register` ' +
        '(or `xctl activity stream`) to receive events\n' +
        'deliveries 0: subscription 5 matches but has no webhook; connect `xctl activity stream` ' +
        '(the event is kept for its backfill), or give the subscription a webhook ' +
        '(`xctl webhooks listen --register`)\n',
    );
  });
});

describe('sandbox start: refusals before anything starts', () => {
  it('flags -> options: defaults', async () => {
    t = testContext();
    expect(await t.optionsOf(registerStart, ['start'])).toEqual(START);
  });

  it('an unknown fault name (exit 2), listing the names and the syntax', async () => {
    t = testContext();
    const err: unknown = await sandboxStart(t.ctx, { ...START, faults: 'bogus=1' }).catch((e: unknown) => e);
    const e = err as { exitCode: number; message: string; hint?: string };
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(
      /fault "bogus" is unknown; known: error_rate, status, latency_ms, drop_rate, rate_limit, match/,
    );
    expect(e.hint).toMatch(/^--faults NAME=VALUE\[,NAME=VALUE\.\.\.\] or a JSON object/);
    expect(t.stdout()).toBe('');
  });

  it.each([
    ['error_rate=2', /error_rate must be a number from 0 to 1/],
    ['{"status":200}', /status must be 400-599/],
    ['match=(', /match is not a valid regular expression/],
  ])('a bad value: %s', async (faults, re) => {
    t = testContext();
    const r = await exitOf(sandboxStart(t.ctx, { ...START, faults }));
    expect(r.code).toBe(2);
    expect(r.message).toMatch(re);
  });

  it('lists the fault names in its help', async () => {
    const help = await helpOf('start');
    expect(help).toMatch(/Faults \(--faults NAME=VALUE/);
    expect(help).toMatch(/short_count_rate +0-1: audience uploads/);
  });

  it('--state: a file that is not a saved state, or not JSON (exit 2), and nothing is listening', async () => {
    t = testContext();
    const bad = path.join(t.configDir, 'bad.json');
    fs.writeFileSync(bad, '{"x":1}');
    const r = await exitOf(sandboxStart(t.ctx, { ...START, state: bad }));
    expect([r.code, r.message]).toEqual([2, expect.stringMatching(/not a sandbox state file/)]);
    fs.writeFileSync(bad, '{nope');
    const r2 = await exitOf(sandboxStart(t.ctx, { ...START, state: bad }));
    expect([r2.code, r2.message]).toEqual([2, expect.stringMatching(/is not valid JSON/)]);
    expect(t.stdout()).toBe('');
  });
});

describe('sandbox faults', () => {
  it('flags -> options: list is the default verb; set takes the specs', async () => {
    t = testContext();
    expect(await t.optionsOf(registerFaults, ['faults', 'set', 'error_rate=1', 'count=1'])).toEqual({
      action: 'set',
      specs: ['error_rate=1', 'count=1'],
    });
    expect(await t.optionsOf(registerFaults, ['faults', 'clear'])).toEqual({ action: 'clear' });
  });

  it('refuses an unknown fault before sending anything (exit 2)', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http, env: SANDBOX });
    const r = await exitOf(sandboxFaults(t.ctx, { action: 'set', specs: ['bogus=1'] }));
    expect([r.code, r.message]).toEqual([2, expect.stringMatching(/fault "bogus" is unknown/)]);
    expect(http.requests).toEqual([]);
  });

  it('set, list and clear print one line each', async () => {
    const spec = { error_rate: 1, status: 502, count: 1 };
    const http = new HttpRegistry()
      .register(route('POST', '/_sandbox/faults'), json({ faults: spec }))
      .register(route('GET', '/_sandbox/faults'), json({ faults: spec, injected: 0 }))
      .register(route('DELETE', '/_sandbox/faults'), json({ faults: {} }));
    t = testContext({ transport: http, env: SANDBOX });
    await sandboxFaults(t.ctx, { action: 'set', specs: ['error_rate=1', 'status=502', 'count=1'] });
    await sandboxFaults(t.ctx, { action: 'list' });
    await sandboxFaults(t.ctx, { action: 'clear' });
    expect(http.requests[0]!.json()).toEqual(spec);
    expect(t.stdout()).toBe(
      'faults: error_rate=1,status=502,count=1\nfaults: error_rate=1,status=502,count=1 (injected 0)\nfaults: none\n',
    );
  });
});

describe('sandbox logs', () => {
  const entry = (over: Record<string, unknown>) => ({
    seq: 1,
    at: '2026-01-15T12:00:00.000Z',
    kind: 'request',
    method: 'GET',
    path: '/2/webhooks',
    status: 200,
    ms: 3,
    ...over,
  });
  it('flags -> options: --limit 50, --no-follow', async () => {
    t = testContext();
    expect(await t.optionsOf(registerLogs, ['logs'])).toEqual({ limit: '50' });
    expect(await t.optionsOf(registerLogs, ['logs', '--no-follow', '--limit', '3'])).toEqual({
      limit: '3',
      follow: false,
    });
  });

  it('one line per entry, escaping what clients sent; --limit outside 1-5000 refused', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/_sandbox/logs', { query: { after: '0', limit: '5' } }),
      json({ data: [entry({}), entry({ seq: 2, path: '/x\u001b[2Jy', status: 404, ms: 1 })], next: 3 }),
    );
    t = testContext({ transport: http, env: SANDBOX });
    await sandboxLogs(t.ctx, { limit: '5', follow: false });
    expect(t.stdout()).toBe(
      '2026-01-15 12:00:00.000  GET    /2/webhooks  200  3ms\n' +
        '2026-01-15 12:00:00.000  GET    /x\\u001b[2Jy  404  1ms\n',
    );
    expect((await exitOf(sandboxLogs(t.ctx, { limit: '0' }))).code).toBe(2);
    expect((await exitOf(sandboxLogs(t.ctx, { limit: '5001' }))).code).toBe(2);
    http.verify();
  });

  it('-o jsonl prints one JSON object per entry', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/_sandbox/logs'),
      json({ data: [entry({}), entry({ seq: 2 })], next: 3 }),
    );
    t = testContext({ transport: http, env: SANDBOX, globals: { output: 'jsonl' } });
    await sandboxLogs(t.ctx, { limit: '3', follow: false });
    expect(
      t
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).seq),
    ).toEqual([1, 2]);
  });
});

describe('sandbox state and clock', () => {
  it('flags -> options', async () => {
    t = testContext();
    expect(await t.optionsOf(registerState, ['state', '--out', 'f.json'])).toEqual({ out: 'f.json' });
    expect(await t.optionsOf(registerClock, ['clock', '--advance', '1d'])).toEqual({ advance: '1d' });
  });

  it('prints the clock, the faults and the counts (tsv piped)', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/_sandbox/state'),
      json({
        counts: { campaigns: 2, webhooks: 0 },
        clock: { mode: 'real', now: '2026-01-15T12:00:00.000Z' },
        faults: {},
        faults_injected: 0,
      }),
    );
    t = testContext({ transport: http, env: SANDBOX, globals: { output: 'tsv' } });
    await sandboxState(t.ctx, {});
    expect(t.stdout()).toBe('clock\t2026-01-15T12:00:00.000Z (real)\nfaults\tnone\ncampaigns\t2\nwebhooks\t0\n');
  });

  it('--out "" is refused before sending', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http, env: SANDBOX });
    expect((await exitOf(sandboxState(t.ctx, { out: '' }))).code).toBe(2);
    expect(http.requests).toEqual([]);
  });
});
