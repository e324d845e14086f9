// Creatives: the seeded media library, a card from JSON, a poll, a draft with its preview, a
// scheduled post deleted for good, and a card rule refused before anything is sent.
export default async function (d) {
  const s = d.sandbox.seed;
  const env = { extraEnv: { XCTL_ACCOUNT_ID: s.account_id } };
  d.section('Creatives', 'The sandbox seeds a media library: a 1.91:1 image, a square image, a GIF and a 16:9 video.');
  await d.xctl(['ads', 'media-library', 'list', '--fields', 'media_key,media_type,name,aspect_ratio'], env);
  d.note('cards are JSON-bodied: components (or slides) from --file, checked against the rules of spec 2.3');
  const card = {
    name: 'Spring app card',
    components: [
      { type: 'MEDIA', media_key: '3_1000000000000000011' },
      {
        type: 'BUTTON',
        label: { type: 'ENUM', value: 'INSTALL' },
        destination: { type: 'APP', country_code: 'US', googleplay_app_id: 'com.example.app' },
      },
    ],
  };
  const made = await d.xctl(['ads', 'cards', 'create', '--file', '-', '--json', '--fields', 'id,card_type,card_uri'], {
    ...env,
    input: JSON.stringify(card),
  });
  const uri = JSON.parse(made.stdout).card_uri;
  d.note('a WEBSITE destination inside a BUTTON is refused before sending (exit 2):');
  const bad = {
    ...card,
    components: [
      card.components[0],
      { ...card.components[1], destination: { type: 'WEBSITE', url: 'https://example.com' } },
    ],
  };
  await d.xctl(['ads', 'cards', 'create', '--file', '-'], { ...env, input: JSON.stringify(bad), allowFail: true });
  await d.xctl(
    [
      'ads',
      'polls',
      'create',
      '--name',
      'Favourite season',
      '--duration-in-minutes',
      '1440',
      '--first-choice',
      'Spring',
      '--second-choice',
      'Autumn',
      '--fields',
      'id,card_type,end_time',
    ],
    env,
  );
  const draft = await d.xctl(
    [
      'ads',
      'drafts',
      'create',
      '--as-user-id',
      s.user_id,
      '--text',
      'Spring is here',
      '--card-uri',
      uri,
      '--json',
      '--fields',
      'id,text,card_uri',
    ],
    env,
  );
  await d.xctl(
    [
      'ads',
      'previews',
      'list',
      '--tweet-ids',
      JSON.parse(draft.stdout).id,
      '--tweet-type',
      'DRAFT',
      '--fields',
      'tweet_id,preview',
    ],
    env,
  );
  const at = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const sched = await d.xctl(
    [
      'ads',
      'scheduled',
      'create',
      '--as-user-id',
      s.user_id,
      '--text',
      'Tomorrow',
      '--scheduled-at',
      at,
      '--json',
      '--fields',
      'id,scheduled_at,scheduled_status',
    ],
    env,
  );
  d.note('deleting a scheduled post is final: the answer shows DELETED, later reads are 404');
  await d.xctl(
    ['ads', 'scheduled', 'delete', JSON.parse(sched.stdout).id, '--fields', 'id,scheduled_status', '--yes'],
    env,
  );
}
