// Audience sync: keep an audience equal to a CRM export by sending only the difference; the
// sandbox keeps the audience's exact members, so the demo shows it matches the file. Then
// `audiences hash`, which prints what upload would send without a network.
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  const day = (from, to) => {
    const f = path.join(d.configDir, `crm-${from}-${to}.txt`);
    fs.writeFileSync(f, Array.from({ length: to - from }, (_, i) => `member${from + i}@example.com`).join('\n') + '\n');
    return f;
  };
  const s = d.sandbox.seed;
  const key = { authorization: `Basic ${Buffer.from(`${s.api_key}:${s.api_secret}`).toString('base64')}` };
  const members = async (id) =>
    (
      await (
        await fetch(`${d.sandbox.baseUrl}/_sandbox/audience-members/custom_audiences/${id}`, { headers: key })
      ).json()
    ).data;

  d.section(
    'Audience sync',
    'Keep an audience equal to a file: only new members (Update) and departed ones (Delete) are sent; the snapshot of what was acknowledged lives in the config folder.',
  );
  const created = await d.xctl(['audiences', 'create', '--name', 'Demo daily sync', '-o', 'json', '--fields', 'id'], {
    show: false,
  });
  const id = JSON.parse(created.stdout).id;
  const monday = day(0, 50_000);
  d.note('--plan sends nothing and needs no credentials: exit 10 means there are changes (for CI)');
  const plan = await d.xctl(
    [
      'audiences',
      'sync',
      id,
      monday,
      '--type',
      'email',
      '--plan',
      '--fields',
      'snapshot,first_sync,members,adds,removes,requests',
    ],
    { allowFail: true },
  );
  d.note(`exit ${plan.code}`);
  d.note('the first sync has no snapshot: it uploads every member and says so');
  await d.xctl([
    'audiences',
    'sync',
    id,
    monday,
    '--type',
    'email',
    '--fields',
    'members,adds,removes,requests,acknowledged',
  ]);
  const tuesday = day(1_000, 51_000);
  d.note("tuesday's export: 1,000 members left, 1,000 joined; only those are sent (1 Delete and 1 Update request)");
  const before = await members(id);
  await d.xctl([
    'audiences',
    'sync',
    id,
    tuesday,
    '--type',
    'email',
    '--fields',
    'members_before,members,adds,removes,requests',
  ]);
  const after = await members(id);
  d.note(
    `the sandbox received ${after.requests - before.requests} requests (${after.updated - before.updated} users added, ${after.deleted - before.deleted} removed) and holds ${after.size} members: the file's count`,
  );
  d.note('in sync: --plan exits 0');
  await d.xctl(['audiences', 'sync', id, tuesday, '--type', 'email', '--plan', '--fields', 'adds,removes']);

  d.section(
    'Audience hash',
    'The digests upload would send, from the same normalizer and worker threads; no credentials, no network.',
  );
  await d.xctl(['audiences', 'hash', '--type', 'email'], { input: ' Ada@Example.com\ngrace@example.com\n' });
  d.note('--explain: each value, its normalized form, and its digest or why it is rejected');
  await d.xctl(['audiences', 'hash', '--type', 'phone_number', '--default-country', 'US', '--explain'], {
    input: '(415) 555-2671\n12\n',
  });
}
