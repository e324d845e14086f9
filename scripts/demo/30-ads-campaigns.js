// Ads part 1: accounts, campaigns (with an all-or-nothing batch), line-item attachments,
// reference data and settings, all generated from the resource table (src/ads/resources/).
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  const json = async (args) => JSON.parse((await d.xctl([...args, '--json'], { show: false })).stdout);
  d.section(
    'Ads accounts and campaigns',
    'Every `xctl ads` command is generated from one table that also drives the sandbox.',
  );
  await d.xctl(['ads', 'accounts', 'list']);
  await d.xctl(['ads', 'accounts', 'add-features', '--feature-keys', 'AGE_TARGETING,REACH_FREQUENCY_CAP']);
  const fi = (await json(['ads', 'funding-instruments', 'list']))[0].id;
  await d.xctl([
    'ads',
    'campaigns',
    'create',
    '--name',
    'Spring sale',
    '--funding-instrument-id',
    fi,
    '--daily-budget-amount-local-micro',
    '25000000',
    '-o',
    'jsonl',
  ]);

  d.note('a batch applies all of its items or none (at most 40):');
  const file = path.join(d.configDir, 'ops.json');
  const ops = ['Summer', 'Autumn', 'Winter'].map((n) => ({
    operation_type: 'Create',
    params: {
      name: `${n} sale`,
      funding_instrument_id: fi,
      daily_budget_amount_local_micro: 10000000,
      entity_status: 'PAUSED',
    },
  }));
  fs.writeFileSync(file, JSON.stringify(ops));
  await d.xctl(['ads', 'campaigns', 'batch', '--file', file]);
  fs.writeFileSync(file, JSON.stringify([...ops, { operation_type: 'Delete', params: { campaign_id: 'nosuch1' } }]));
  await d.xctl(['ads', 'campaigns', 'batch', '--file', file], { allowFail: true });
  d.note('pages follow next_cursor: --count 2 per request, --all pages');
  await d.xctl(['ads', 'campaigns', 'list', '--count', '2', '--all', '--fields', 'id,name,entity_status']);

  d.section(
    'Line-item attachments',
    'The sandbox seeds three line items, one per product type (the whole loop with your own is at the end).',
  );
  await d.xctl(['ads', 'line-items', 'list']);
  const lis = await json(['ads', 'line-items', 'list']);
  const web = lis.find((l) => l.objective === 'WEBSITE_CLICKS').id;
  const followers = lis.find((l) => l.objective === 'FOLLOWERS').id;
  await d.xctl([
    'ads',
    'promoted-tweets',
    'create',
    '--line-item-id',
    web,
    '--tweet-ids',
    '1440000000000000001,1440000000000000002',
  ]);
  d.note('promoted accounts need a PROMOTED_ACCOUNT line item:');
  await d.xctl(['ads', 'promoted-accounts', 'create', '--line-item-id', web, '--user-id', '783214'], {
    allowFail: true,
  });
  await d.xctl(['ads', 'promoted-accounts', 'create', '--line-item-id', followers, '--user-id', '783214']);

  d.section('Reference data and settings');
  await d.xctl(['ads', 'ref', 'bidding-rules']);
  await d.xctl([
    'ads',
    'ref',
    'keyword-insights',
    '--granularity',
    'DAY',
    '--keywords',
    'sneakers',
    '--start-time',
    new Date(Date.now() - 3 * 86400_000).toISOString(),
    '--limit',
    '4',
  ]);
  await d.xctl(['ads', 'settings', 'tax', 'update', '--tax-category', 'BUSINESS_WITH_VAT', '--tax-id', 'DE123456789']);
  d.note('every rule of the spec is checked before sending (exit 2):');
  await d.xctl(['ads', 'campaigns', 'list', '--with-total-count', '--cursor', 'c-1'], { allowFail: true });
}
