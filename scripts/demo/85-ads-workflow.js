// The whole ads loop from the terminal: upload an image, make a card with it, a campaign, a line
// item, targeting, promote a post, move the sandbox clock a day, read the stats (sync and a job).
import fs from 'node:fs';
import path from 'node:path';
import { png } from './lib/png.js';

const nyDate = (ms) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(ms));

export default async function (d) {
  const json = async (args, input) => JSON.parse((await d.xctl([...args, '--json'], { show: false, input })).stdout);
  d.section(
    'The whole ads loop',
    'Upload an image, card, campaign, line item, targeting, promoted post; a day passes; stats.',
  );
  const file = path.join(d.configDir, 'spring-banner.png');
  fs.writeFileSync(file, png(1200, 628));
  await d.xctlTTY(['media', 'upload', file, '--add-to-library', '--name', 'Spring banner']);
  const key = (await json(['ads', 'media-library', 'list', '--q', 'spring'])).find(
    (m) => m.name === 'Spring banner',
  ).media_key;
  const card = {
    name: 'Spring card',
    components: [
      { type: 'MEDIA', media_key: key },
      { type: 'DETAILS', title: 'Spring sale', destination: { type: 'WEBSITE', url: 'https://example.com/spring' } },
    ],
  };
  await d.xctl(['ads', 'cards', 'create', '--file', '-', '--fields', 'id,name,card_type,card_uri'], {
    input: JSON.stringify(card),
  });

  const fi = (await json(['ads', 'funding-instruments', 'list']))[0].id;
  const camp = (
    await json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Spring loop',
      '--funding-instrument-id',
      fi,
      '--daily-budget-amount-local-micro',
      '50000000',
    ])
  ).id;
  d.note('a line item: engagements on promoted posts, $1.50 per engagement; xctl creates it PAUSED unless told');
  await d.xctl([
    'ads',
    'line-items',
    'create',
    '--campaign-id',
    camp,
    '--objective',
    'ENGAGEMENTS',
    '--product-type',
    'PROMOTED_TWEETS',
    '--placements',
    'ALL_ON_TWITTER',
    '--bid-amount-local-micro',
    '1500000',
    '--name',
    'Spring engagements',
    '--fields',
    'id,name,objective,placements,bid_amount_local_micro,entity_status,start_time',
  ]);
  const li = (await json(['ads', 'line-items', 'list', '--campaign-ids', camp]))[0].id;
  d.note('targeting values come from the lookups:');
  await d.xctl(['ads', 'targeting-options', 'locations', '--q', 'san francisco']);
  await d.xctl([
    'ads',
    'targeting',
    'add',
    '--line-item-id',
    li,
    '--targeting-type',
    'LOCATION',
    '--targeting-value',
    '5122804691e5fecc',
  ]);
  await d.xctl([
    'ads',
    'targeting',
    'add',
    '--line-item-id',
    li,
    '--targeting-type',
    'BROAD_KEYWORD',
    '--targeting-value',
    'spring sale',
  ]);
  await d.xctl(['ads', 'promoted-tweets', 'create', '--line-item-id', li, '--tweet-ids', '1440000000000000042']);
  await d.xctl([
    'ads',
    'line-items',
    'update',
    li,
    '--entity-status',
    'ACTIVE',
    '--fields',
    'id,name,entity_status,bid_amount_local_micro',
  ]);

  d.note('the sandbox simulates impressions of ACTIVE line items on its clock: a day passes');
  await d.xctl(['sandbox', 'clock', '--advance', '1d']);
  const now = Date.parse((await json(['sandbox', 'clock'])).now);
  const start = nyDate(now - 86400_000);
  const end = nyDate(now + 86400_000);
  await d.xctl([
    'ads',
    'stats',
    '--entity',
    'LINE_ITEM',
    '--ids',
    li,
    '--start',
    start,
    '--end',
    end,
    '--fields',
    'id,start,impressions,engagements,clicks,billed_engagements,billed_charge_local_micro',
  ]);
  d.note('the same range as one TOTAL adds up to the days above; as an asynchronous job with its gzipped file:');
  await d.xctl([
    'ads',
    'stats',
    '--entity',
    'LINE_ITEM',
    '--ids',
    li,
    '--start',
    start,
    '--end',
    end,
    '--granularity',
    'TOTAL',
    '--fields',
    'id,impressions,engagements,billed_charge_local_micro',
  ]);
  const job = await json([
    'ads',
    'stats',
    'job',
    'create',
    '--entity',
    'LINE_ITEM',
    '--ids',
    li,
    '--start',
    start,
    '--end',
    end,
    '--granularity',
    'TOTAL',
    '--segmentation-type',
    'GENDER',
  ]);
  await d.xctl([
    'ads',
    'stats',
    'job',
    'wait',
    job.id_str,
    '--download',
    '--fields',
    'id,segment,impressions,engagements,billed_charge_local_micro',
  ]);
  await d.xctl([
    'ads',
    'stats',
    'active-entities',
    '--entity',
    'LINE_ITEM',
    '--start-time',
    `${new Date(Math.floor(now / 3600_000) * 3600_000 - 48 * 3600_000).toISOString().slice(0, 13)}:00:00Z`,
    '--end-time',
    `${new Date(Math.floor(now / 3600_000) * 3600_000).toISOString().slice(0, 13)}:00:00Z`,
    '--line-item-ids',
    li,
  ]);
}
