// Audiences as code: a YAML file lists audiences on two accounts (one a do-not-reach list fed
// by a command); `apply --plan` shows what would change (exit 10), `apply` makes it so, an
// edited source plans only its audience, and a grant revoked by hand is drift.
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  const dir = path.join(d.configDir, 'fleet');
  fs.mkdirSync(dir, { recursive: true });
  const write = (name, lines) => fs.writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
  const range = (from, to, f) => Array.from({ length: to - from }, (_, i) => f(from + i));
  const accounts = JSON.parse((await d.xctl(['ads', 'accounts', 'list', '-o', 'json'], { show: false })).stdout);
  const sister = accounts.find((a) => a.name === 'Sandbox Sister Account').id;
  write('newsletter.csv', ['Name,E-mail Address', ...range(0, 2000, (i) => `Reader ${i},reader${i}@example.com`)]);
  write(
    'lapsed.txt',
    range(0, 300, (i) => `(415) 555-${String(i).padStart(4, '0')}`),
  );
  write(
    'dnr.txt',
    range(0, 40, (i) => `optout${i}@example.com`),
  );
  const file = path.join(dir, 'audiences.yaml');
  fs.writeFileSync(
    file,
    `defaults:
  type: email
audiences:
  - name: Demo newsletter
    source: newsletter.csv
    columns: {email: "E-mail Address"}
    share_with: [${sister}]
  - name: Demo lapsed buyers
    account: ${sister}
    type: phone_number
    source: lapsed.txt
    default_country: US
  - name: Demo do not contact
    kind: do_not_reach
    command: "sort -u dnr.txt"
`,
  );

  d.section(
    'Audiences as code',
    'audiences.yaml lists audiences on two accounts; apply keeps each equal to its source, through sync.',
  );
  d.note('a file whose sources are commands is code: read it, then trust this exact text once (its SHA-256)');
  await d.xctl(['audiences', 'apply', '-f', file, '--plan'], { allowFail: true });
  await d.xctl(['audiences', 'apply', '-f', file, '--trust']);
  d.note('the plan: exit 10 when anything would change (CI gates on it); -o json for machines');
  const plan = await d.xctl(['audiences', 'apply', '-f', file, '--plan'], { allowFail: true });
  d.note(`exit ${plan.code}`);
  d.note('apply: creates, syncs members (one journal and lock per audience), shares; accounts in parallel');
  const applied = JSON.parse((await d.xctl(['audiences', 'apply', '-f', file, '-o', 'json'], { show: false })).stdout);
  for (const a of applied.audiences)
    d.note(
      `${a.name}: ${a.action}, ${a.adds} adds acknowledged (${a.acknowledged}), ${a.grants} grants -> ${a.status}`,
    );
  const news = applied.audiences[0].id;

  d.note('one source edited (100 readers left, 50 joined): only that audience plans changes');
  write('newsletter.csv', ['E-mail Address', ...range(100, 2050, (i) => `reader${i}@example.com`)]);
  await d.xctl(['audiences', 'apply', '-f', file, '--plan'], { allowFail: true });

  d.note('a grant revoked by hand is drift: the plan shows it, apply grants it again');
  const [grant] = JSON.parse(
    (await d.xctl(['audiences', 'permissions', 'list', news, '-o', 'json'], { show: false })).stdout,
  );
  await d.xctl(['audiences', 'permissions', 'revoke', news, grant.id, '--yes'], { show: false });
  await d.xctl(
    [
      'audiences',
      'apply',
      '-f',
      file,
      '--plan',
      '--only',
      'Demo newsletter',
      '-o',
      'json',
      '--jq',
      '.audiences[] | {name, action, adds, removes, grants, drift}',
    ],
    { allowFail: true },
  );
  await d.xctl(['audiences', 'apply', '-f', file]);
  // The admin endpoints that show data take the sandbox app's key (another local user must not read them).
  const seed = d.sandbox.seed;
  const key = { authorization: `Basic ${Buffer.from(`${seed.api_key}:${seed.api_secret}`).toString('base64')}` };
  const m = (
    await (
      await fetch(`${d.sandbox.baseUrl}/_sandbox/audience-members/custom_audiences/${news}`, { headers: key })
    ).json()
  ).data;
  d.note(`the sandbox holds ${m.size} members in "Demo newsletter": the file's 1950; the next plan exits 0`);
  await d.xctl(['audiences', 'apply', '-f', file, '--plan']);
}
