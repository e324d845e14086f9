// The sandbox's own controls: its request log, its state (saved for `sandbox start --state`),
// and injected faults, as commands instead of raw admin URLs.
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  d.section('Sandbox controls', 'What the sandbox answered and delivered, its state, and faults on demand.');
  await d.xctl(['sandbox', 'logs', '--no-follow', '--limit', '6']);
  await d.xctl(['sandbox', 'faults', 'set', 'error_rate=1', 'status=503', 'count=2', 'match=^/2/webhooks$']);
  d.note('the list call meets two 503s, retries with backoff, and succeeds:');
  await d.xctl(['webhooks', 'list']);
  await d.xctl(['sandbox', 'faults', 'clear']);
  const file = path.join(d.configDir, 'fixtures.json');
  await d.xctl(['sandbox', 'state', '--out', file]);
  d.note(
    `a CI job starts from it with \`xctl sandbox start --json --state fixtures.json\` (${fs.statSync(file).size} bytes, mode 0600)`,
  );
}
