// Webhooks, activity and filtered stream: a local receiver registered with the sandbox, events
// triggered and printed, a forged delivery refused, and the live activity stream.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** Starts a long-running xctl command; resolves once `ready` appears on its stderr. */
function background(d, args, ready, label) {
  console.log(`$ xctl ${args.join(' ')} &`);
  const child = spawn(process.execPath, [path.join(d.root, 'bin/xctl.js'), ...args], {
    env: d.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const show = (s) =>
    String(s)
      .split('\n')
      .filter(Boolean)
      .forEach((l) => console.log(`  [${label}] ${l}`));
  let err = '';
  child.stdout.on('data', show);
  child.stderr.on('data', (s) => {
    err += s;
    show(s);
  });
  const match = new Promise((resolve, reject) => {
    const t = setInterval(() => {
      const m = err.match(ready);
      if (m) {
        clearInterval(t);
        resolve(m);
      }
    }, 20);
    child.on('close', () => {
      clearInterval(t);
      reject(new Error(`xctl ${args.join(' ')} ended early:\n${err}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      child.removeAllListeners('close');
      child.on('close', resolve);
      child.kill('SIGINT');
    });
  return { match, stop };
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

export default async function (d) {
  d.section('Webhooks', 'A local receiver answers the challenge check (CRC) and verifies each delivery signature.');
  await d.xctl(['webhooks', 'crc', '9b4507b3-9040-4669-9ca3-6b94edb50553']);
  d.note('listen --register registers the receiver and subscribes it to events (here one type; by default all 29)');
  const listener = background(
    d,
    ['webhooks', 'listen', '--register', '--events', 'profile.update.bio', '--user-id', '783214'],
    /subscribed webhook (\d+)/,
    'listen',
  );
  const [, id] = await listener.match;
  const url = (await listener.match).input.match(/listening on (\S+?)[;\s]/)[1];
  try {
    await d.xctl(['webhooks', 'list']);
    await d.xctl(['activity', 'subscriptions', 'list']);
    await d.xctl([
      'sandbox',
      'trigger',
      'profile.update.bio',
      '--user-id',
      '783214',
      '--data',
      '{"before":"Marketing","after":"Marketing and webhooks"}',
    ]);
    d.section(
      'Filtered stream webhooks',
      'Rules on /2/tweets/search/stream/rules; matching posts (with edit history) go to linked webhooks.',
    );
    await d.xctl(['stream', 'rules', 'add', 'sandbox (cats OR dogs)', '--tag', 'pets']);
    await d.xctl(['stream', 'webhooks', 'link', id]);
    await d.xctl([
      'sandbox',
      'trigger',
      'post.create',
      '--user-id',
      '6253282',
      '--data',
      '{"text":"the sandbox dogs say hi"}',
    ]);
    d.note('a forged delivery gets 403 and is logged, never printed as an event:');
    const res = await fetch(url, {
      method: 'POST',
      body: '{"data":{"event_type":"profile.update.bio"}}',
      headers: { 'x-service-webhooks-signature': 'sha256=AAAA' },
    });
    console.log(`  POST ${url} with a wrong signature -> HTTP ${res.status}`);
    await d.xctl(['webhooks', 'validate', id]);
    d.section(
      'Account Activity API',
      'A user subscribes the webhook to their own account; every event about them is delivered, signed.',
    );
    await d.xctl(['account-activity', 'subscribe', id]);
    await d.xctl(['account-activity', 'count']);
    await d.xctl([
      'sandbox',
      'trigger',
      'follow.follow',
      '--user-id',
      d.sandbox.seed.user_id,
      '--data',
      '{"target":{"id":"783214"}}',
    ]);
    await d.xctl(['account-activity', 'list', id]);
    await pause(100);
  } finally {
    d.note('Ctrl-C: the listener stops and deletes its subscription and its webhook (--keep leaves them)');
    await listener.stop();
  }
  d.section('Activity stream', 'NDJSON on stdout; reconnects with backoff and backfill so no event is missed.');
  await d.xctl([
    'activity',
    'subscriptions',
    'create',
    '--event',
    'spaces.start',
    '--user-id',
    '783214',
    '--tag',
    'spaces',
  ]);
  const stream = background(
    d,
    ['activity', 'stream', '--backfill-minutes', '1'],
    /connected to the activity stream/,
    'stream',
  );
  await stream.match;
  await d.xctl(['sandbox', 'trigger', 'spaces.start', '--user-id', '783214', '--data', '{"title":"Office hours"}'], {
    show: true,
  });
  await pause(200);
  await stream.stop();
  await d.xctl(['activity', 'subscriptions', 'list']);
  d.note('only the tag and the webhook of a subscription can change; several ids are deleted in one request');
  const subs = JSON.parse((await d.xctl(['activity', 'subscriptions', 'list', '-o', 'json'], { show: false })).stdout);
  if (subs.length)
    await d.xctl(['activity', 'subscriptions', 'update', subs[0].subscription_id, '--tag', 'office-hours']);
  if (subs.length)
    await d.xctl(['activity', 'subscriptions', 'delete', ...subs.map((s) => s.subscription_id), '--yes']);
}
