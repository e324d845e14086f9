// Fault injection for every command family (issue 10): reads (idempotent) are retried through
// 5xx and dropped connections and succeed; creates (POST) that failed after the write happened
// are not repeated, and the message says the write may have happened; a DELETE retried after a
// lost answer says its 404 is most likely the first attempt's doing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';
import { startReceiver } from '../helpers/receiver.js';

let t: AdsSandbox;
let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await startAdsSandbox();
  rx = await startReceiver(t.sb.seed.api_secret);
});
afterAll(async () => {
  await rx.close();
  await t.close();
});
afterEach(async () => {
  await t.admin('DELETE', '/_sandbox/faults');
});

const fault = (spec: Record<string, unknown>) => t.admin('POST', '/_sandbox/faults', spec);
const count = (method: string, re: RegExp) => t.requests.filter((l) => l.startsWith(method + ' ') && re.test(l)).length;
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at /);

describe('reads are retried through 5xx and dropped connections', () => {
  const reads: Array<[string, string[], string]> = [
    ['webhooks', ['webhooks', 'list'], '^/2/webhooks'],
    ['activity', ['activity', 'subscriptions', 'list'], '^/2/activity/subscriptions'],
    ['stream', ['stream', 'rules', 'list'], '^/2/tweets/search/stream/rules'],
    ['ads', ['ads', 'campaigns', 'list'], '/campaigns'],
    ['audiences', ['audiences', 'list'], '/custom_audiences'],
  ];
  for (const [family, args, match] of reads) {
    it(`${family}: two 503s then success; two drops then success`, async () => {
      await fault({ error_rate: 1, status: 503, count: 2, match, method: 'GET' });
      const r = await t.run(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.match(/HTTP 503 from GET .*; retrying/g)).toHaveLength(2);
      await fault({ drop_rate: 1, count: 2, match, method: 'GET' });
      const d = await t.run(args);
      expect(d.code, d.stderr).toBe(0);
      expect(d.stderr.match(/closed unexpectedly; retrying/g)).toHaveLength(2);
    });
  }
});

describe('creates are not repeated when the write may have happened', () => {
  const creates: Array<[string, (n: number) => string[], string, string]> = [
    ['webhooks', (n) => ['webhooks', 'create', `${rx.url.replace(/\/$/, '')}/hook${n}`], '^/2/webhooks$', 'webhooks'],
    [
      'activity',
      (n) => ['activity', 'subscriptions', 'create', '--event', 'profile.update.bio', '--user-id', String(100 + n)],
      '^/2/activity/subscriptions$',
      'activity_subscriptions',
    ],
    [
      'stream',
      (n) => ['stream', 'rules', 'add', `faulty rule ${n}`],
      '^/2/tweets/search/stream/rules$',
      'stream_rules',
    ],
    [
      'ads',
      () => [
        'ads',
        'campaigns',
        'create',
        '--name',
        `faulty ${Math.random()}`,
        '--funding-instrument-id',
        [...t.collection('funding_instruments').keys()][0]!,
        '--daily-budget-amount-local-micro',
        '5000000',
      ],
      '/campaigns$',
      'campaigns',
    ],
    [
      'audiences',
      () => ['audiences', 'create', '--name', `faulty ${Math.random()}`],
      '/custom_audiences$',
      'custom_audiences',
    ],
  ];
  const state = async (name: string) =>
    (await t.admin<{ counts: Record<string, number> }>('GET', '/_sandbox/state')).counts[name] ?? 0;

  for (const [family, args, match, entity] of creates) {
    it(`${family}: a 500 after the write, then a connection dropped after the write: one POST each, "may have been applied"`, async () => {
      const re = new RegExp(match.replace(/^\^/, '').replace(/\$$/, ''));
      const before = await state(entity);
      const posts = count('POST', re);
      await fault({ error_rate: 1, status: 500, count: 1, after: true, match, method: 'POST' });
      const r = await t.run(args(1));
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/HTTP 500/);
      expect(r.stderr).toMatch(/hint: .*not retried: the POST may have been applied/);
      noStack(r.stderr);
      expect(count('POST', re) - posts).toBe(1);
      expect(await state(entity)).toBe(before + 1); // the write did happen: the message was right

      await fault({ drop_rate: 1, count: 1, after: true, match, method: 'POST' });
      const d = await t.run(args(2));
      expect(d.code, d.stderr).toBe(1);
      expect(d.stderr).toMatch(/error: connection to .* closed unexpectedly/);
      expect(d.stderr).toMatch(/hint: .*the POST may have been applied before the connection failed/);
      noStack(d.stderr);
      // a dropped answer leaves no line in the request log: the state shows one write, not two
      expect(await state(entity)).toBe(before + 2);
    });
  }

  it('a 503 before the handler is not retried either (the client cannot tell), and says so', async () => {
    await fault({ error_rate: 1, status: 503, count: 1, match: '/custom_audiences$', method: 'POST' });
    const r = await t.run(['audiences', 'create', '--name', 'never written']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/hint: .*may have been applied/);
  });
});

describe('idempotent writes', () => {
  it('a PUT is retried after a lost answer and succeeds', async () => {
    const c = JSON.parse((await t.run(['audiences', 'create', '--name', 'put target', '--json'])).stdout);
    await fault({
      error_rate: 1,
      status: 500,
      count: 1,
      after: true,
      match: `/custom_audiences/${c.id}$`,
      method: 'PUT',
    });
    const r = await t.run(['audiences', 'update', c.id, '--name', 'put target 2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).name).toBe('put target 2');
    expect(r.stderr).toMatch(/HTTP 500 from PUT .*retrying/);
  });

  it('a DELETE retried after a lost answer gets 404, and is told the first attempt most likely deleted it', async () => {
    const fi = [...t.collection('funding_instruments').keys()][0]!;
    const c = JSON.parse(
      (
        await t.run([
          'ads',
          'campaigns',
          'create',
          '--name',
          'to delete',
          '--funding-instrument-id',
          fi,
          '--daily-budget-amount-local-micro',
          '5000000',
          '--json',
        ])
      ).stdout,
    );
    await fault({ error_rate: 1, status: 500, count: 1, after: true, match: `/campaigns/${c.id}$`, method: 'DELETE' });
    const r = await t.run(['ads', 'campaigns', 'delete', c.id, '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: .*HTTP 404/);
    expect(r.stderr).toMatch(/hint: the DELETE was retried after "HTTP 500": the first attempt most likely deleted it/);
    expect(t.collection('campaigns').get(c.id)?.deleted).toBe(true);
  });
});
