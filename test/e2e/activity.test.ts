// `xctl activity ...` and `xctl stream ...` against a real sandbox: subscriptions, a stream that
// survives a dropped connection without losing an event, and filtered-stream rules. Flags,
// refusals and output of these verbs (and of account-activity) are tested in-process in
// test/unit/verbs/activity.test.ts and test/unit/verbs/stream.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';
import { appBearer, spawnCli, waitFor } from '../helpers/receiver.js';
import type { Row, SandboxStateBody } from '../helpers/json.js';

let t: TestSandbox;

beforeAll(async () => {
  t = await startTestSandbox();
  t.env.XCTL_BEARER_TOKEN = await appBearer(t.sb.baseUrl, t.sb.seed.api_key, t.sb.seed.api_secret);
});
afterAll(async () => {
  await t.close();
});

describe('activity subscriptions', () => {
  it('creates, lists and deletes (the sandbox accepts what the CLI signs and sends)', async () => {
    const a = await t.run([
      'activity',
      'subscriptions',
      'create',
      '--event',
      'dm.received',
      '--direction',
      'inbound',
      '--keyword',
      'hello',
      '--tag',
      'dms',
      '-o',
      'json',
    ]);
    expect(a.code).toBe(0);
    const sub = JSON.parse(a.stdout);
    expect(sub).toMatchObject({
      event_type: 'dm.received',
      filter: { direction: 'inbound', keyword: 'hello' },
      tag: 'dms',
    });
    const list = await t.run(['activity', 'subscriptions', 'list', '-o', 'json']);
    expect((JSON.parse(list.stdout) as Row[]).map((s) => s.subscription_id)).toContain(sub.subscription_id);
    const del = await t.run(['activity', 'subscriptions', 'delete', sub.subscription_id, '--yes']);
    expect([del.code, del.stderr]).toEqual([0, expect.stringContaining(`deleted subscription ${sub.subscription_id}`)]);
  });
});

describe('activity stream', () => {
  it('prints NDJSON and survives a dropped connection without losing or repeating an event', async () => {
    const sub = await t.run([
      'activity',
      'subscriptions',
      'create',
      '--event',
      'spaces.start',
      '--user-id',
      '783214',
      '--tag',
      'live',
    ]);
    expect(sub.code).toBe(0);
    const s = spawnCli(['activity', 'stream'], { ...t.env, XCTL_RETRY_BASE_MS: '50' });
    const trigger = async (title: string) =>
      (
        await t.admin<{ data: { event_uuid: string } }>('POST', '/_sandbox/events', {
          event_type: 'spaces.start',
          user_id: '783214',
          payload: { title },
        })
      ).data.event_uuid;
    const lines = () =>
      s
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).data);
    try {
      await s.waitStderr(/connected to the activity stream/);
      await waitFor(
        async () => (await t.admin<SandboxStateBody>('GET', '/_sandbox/state')).counts.activity_streams === 1,
        'the stream to open',
      );
      const a = await trigger('A');
      await s.waitStdout(/"title":"A"/);
      // The next event kills the connection while in flight; the client reconnects with backfill.
      await t.admin('POST', '/_sandbox/faults', { stream_drop_rate: 1, count: 1 });
      const b = await trigger('B');
      await s.waitStderr(/connected to the activity stream \(backfill \d min\)/);
      await waitFor(
        async () => (await t.admin<SandboxStateBody>('GET', '/_sandbox/state')).counts.activity_streams === 1,
        'the stream to reopen',
      );
      const c = await trigger('C');
      await s.waitStdout(/"title":"C"/);
      await waitFor(() => lines().length >= 3 && lines(), 'three events');
      expect(lines().map((d) => d.event_uuid)).toEqual([a, b, c]); // B recovered by backfill, A not repeated
      expect(lines()[0]).toEqual({
        event_uuid: a,
        event_type: 'spaces.start',
        filter: { user_id: '783214' },
        tag: 'live',
        payload: { title: 'A' },
      });
      expect(s.stderr()).toMatch(/stream connection lost|the stream ended/);
    } finally {
      await t.admin('DELETE', '/_sandbox/faults');
      expect(await s.stop()).toBe(0);
    }
  });

  it('reconnects, with backfill, when the keep-alive watchdog sees nothing for --stall-timeout', async () => {
    const s = spawnCli(['activity', 'stream', '--stall-timeout', '1'], { ...t.env, XCTL_RETRY_BASE_MS: '50' });
    try {
      await s.waitStderr(/no data or keep-alive for 1 s; reconnecting/);
      await s.waitStderr(/connected to the activity stream \(backfill [1-5] min\)/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('--jq runs over each event of a replayed window', async () => {
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const from = iso(Date.now() - 1000);
    await t.admin('POST', '/_sandbox/events', {
      event_type: 'spaces.start',
      user_id: '783214',
      payload: { title: 'jq me' },
    });
    await new Promise((r) => setTimeout(r, 2100));
    const r = await t.run([
      'activity',
      'stream',
      '--start-time',
      from,
      '--end-time',
      iso(Date.now() - 1000),
      '--jq',
      'select(.data.payload.title == "jq me") | .data.payload.title',
    ]);
    expect([r.code, r.stdout], r.stderr).toEqual([0, 'jq me\n']);
    const bad = await t.run(['activity', 'stream', '--jq', '.data | ']);
    // --jq makes the output JSON, so the error is JSON too (issue 33).
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringMatching(/^\{"error":\{"type":"UsageError","message":"--jq: syntax error/),
    ]);
  });
});

describe('stream rules', () => {
  it('adds from arguments and a rules file, dry-runs, lists, deletes; the sandbox refuses a duplicate', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'rules.txt');
    fs.writeFileSync(file, '# pets\ncats OR dogs\n{"value":"\\"sandbox news\\"","tag":"news"}\n');
    const dry = await t.run(['stream', 'rules', 'add', '--file', file, '--dry-run']);
    expect([dry.code, dry.stderr]).toEqual([0, 'dry run: would add 2, invalid 0; nothing was added\n']);
    expect(dry.stdout).toBe('cats OR dogs\t\n"sandbox news"\tnews\n');
    // The sandbox's own count between steps; `rules list` through the CLI once, with three rules.
    const rules = async () => (await t.admin<SandboxStateBody>('GET', '/_sandbox/state')).counts.stream_rules ?? 0;
    expect(await rules()).toBe(0);
    const add = await t.run(['stream', 'rules', 'add', 'birds', '--tag', 'b', '--file', file, '-o', 'json']);
    expect(add.code).toBe(0);
    expect((JSON.parse(add.stdout) as Row[]).map((r) => r.value)).toEqual(['birds', 'cats OR dogs', '"sandbox news"']);
    const dup = await t.run(['stream', 'rules', 'add', 'birds']);
    expect([dup.code, dup.stderr]).toEqual([1, expect.stringContaining('DuplicateRule')]);
    const list = JSON.parse((await t.run(['stream', 'rules', 'list', '-o', 'json'])).stdout);
    expect(list.length).toBe(3);
    // issue 29 item 3: a dry run says what would happen to a rule that exists
    const dryDel = await t.run(['stream', 'rules', 'delete', list[0].id, '--dry-run']);
    expect([dryDel.code, dryDel.stderr]).toEqual([
      0,
      'dry run: would delete 1, would not delete 0; nothing was deleted\n',
    ]);
    expect(await rules()).toBe(3);
    const del = await t.run(['stream', 'rules', 'delete', list[0].id]);
    expect([del.code, del.stderr]).toEqual([0, expect.stringContaining('deleted 1')]);
    expect(await rules()).toBe(2);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
