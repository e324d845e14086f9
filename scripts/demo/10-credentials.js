// Foundation: store credentials in a profile, check them, make a raw signed call.
export default async function (d) {
  const s = d.sandbox.seed;
  d.section(
    'Credentials and profiles',
    `A sandbox is running at ${s.base_url} with an app, three users and an ads account.`,
  );
  d.note('secrets are never taken from argv: they come from stdin ("-") or a hidden prompt');
  await d.xctl(
    [
      'auth',
      'set',
      '--api-key',
      s.api_key,
      '--api-secret',
      '-',
      '--access-token',
      s.access_token,
      '--access-token-secret',
      '-',
    ],
    {
      input: `${s.api_secret}\n${s.access_token_secret}\n`,
    },
  );
  await d.xctl(['auth', 'status']);
  d.note('--check asks the service about each credential (exit 1 on any failure)');
  await d.xctl(['auth', 'status', '--check']);
  d.note('a mistyped profile is refused with the closest name, instead of acting on an empty one:');
  await d.xctl(['--profile', 'defualt', 'auth', 'status'], { allowFail: true });
  await d.xctl(['config', 'set', 'account_id', s.account_id]);
  await d.xctl(['config', 'list']);
  d.section('Raw signed requests', 'Like twurl: -d pairs are a signed form body, --body is JSON.');
  await d.xctl(['request', '/_sandbox/state', '--auth', 'none']);
  d.note('bad input is refused before anything is sent (exit 2):');
  await d.xctl(['request', '/2/webhooks', '--auth', 'magic'], { allowFail: true });
}
