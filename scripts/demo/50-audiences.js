// Audiences: create (unique names), share within the business (not outside it), combine into a
// flexible audience (immutable), the do-not-reach list, and a size estimate.
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  const state = d.sandbox.app.state;
  const accounts = [...state.collection('accounts').values()];
  const sister = accounts.find((a) => a.name === 'Sandbox Sister Account').id;
  const partner = accounts.find((a) => a.name === 'Sandbox Partner Account').id;
  const audience = (name) =>
    [...state.collection('custom_audiences').values()].find((a) => a.name === name && !a.deleted).id;
  const file = (name, body) => {
    const p = path.join(d.configDir, name);
    fs.writeFileSync(p, JSON.stringify(body, null, 1));
    return p;
  };

  d.section(
    'Custom audiences',
    'Names are unique in the account; get shows audience_size, the distinct users uploaded.',
  );
  await d.xctl(['audiences', 'create', '--name', 'Newsletter readers', '--description', 'from the CRM']);
  await d.xctl(['audiences', 'create', '--name', 'newsletter readers'], { allowFail: true });
  const readers = audience('Newsletter readers');
  const seeded = audience('Seeded customers');
  await d.xctl(['audiences', 'targeted', seeded]);

  d.section('Sharing', 'Within the business, or outside it only with SHARE_AUDIENCE_OUTSIDE_BUSINESS.');
  await d.xctl([
    'audiences',
    'permissions',
    'grant',
    readers,
    '--granted-account-id',
    sister,
    '--permission-level',
    'READ_ONLY',
  ]);
  await d.xctl(
    ['audiences', 'permissions', 'grant', readers, '--granted-account-id', partner, '--permission-level', 'READ_ONLY'],
    { allowFail: true },
  );
  await d.xctl([
    'audiences',
    'list',
    '--account',
    sister,
    '--permission-scope',
    'SHARED',
    '--fields',
    'id,name,is_owner,permission_level',
  ]);

  d.section('Flexible audiences', 'Combinations of custom audiences; immutable once created.');
  const spec = file('flexible.json', {
    name: 'Readers not yet customers',
    child_segments: [
      { custom_audience_id: readers, negate: false, lookback_window: 30 },
      { custom_audience_id: seeded, negate: true },
    ],
  });
  await d.xctl(['audiences', 'flexible', 'create', '--file', spec]);
  const flex = audience('Readers not yet customers');
  await d.xctl(['audiences', 'update', flex, '--name', 'Renamed'], { allowFail: true });

  d.section(
    'Do-not-reach list and estimates',
    'One do-not-reach list per account; estimates need a primary criterion.',
  );
  await d.xctl(['audiences', 'do-not-reach', 'create', '--description', 'opted out']);
  await d.xctl(['audiences', 'do-not-reach', 'create'], { allowFail: true });
  const targeting = file('targeting.json', [
    { targeting_type: 'BROAD_KEYWORD', targeting_value: 'coffee' },
    { targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' },
  ]);
  await d.xctl(['audiences', 'estimate', '--targeting', targeting]);
  await d.xctl(
    [
      'audiences',
      'estimate',
      '--targeting',
      file('no-primary.json', [{ targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' }]),
    ],
    { allowFail: true },
  );
}
