// The week in pictures: a week passes on the sandbox clock, the seeded campaign's stats are drawn
// as line charts in the terminal, and a self-contained HTML report is written (the demo's last
// word: open it in a browser).
import fs from 'node:fs';
import path from 'node:path';

const nyDate = (ms) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(ms));

export default async function (d) {
  const json = async (args) => JSON.parse((await d.xctl([...args, '--json'], { show: false })).stdout);
  d.section('The week in pictures', 'A week passes; its stats as terminal charts, then as an HTML report.');
  await d.xctl(['sandbox', 'clock', '--advance', '8d']);
  const now = Date.parse((await json(['sandbox', 'clock'])).now);
  const start = nyDate(now - 7 * 86400_000);
  const end = nyDate(now);
  const campaign = (await json(['ads', 'campaigns', 'list'])).find((c) => c.name === 'Seeded campaign').id;
  await d.xctlTTY(
    ['ads', 'stats', '--entity', 'CAMPAIGN', '--ids', campaign, '--start', start, '--end', end, '--chart'],
    { extraEnv: { LANG: process.env.LANG || 'C.UTF-8', COLUMNS: '80' } },
  );
  const out = path.join(d.root, 'test-output', 'demo-ads-report.html');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await d.xctl(['ads', 'report', '--campaign-ids', campaign, '--start', start, '--end', end, '--out', out]);
  d.note(`open ${path.relative(process.cwd(), out)} in a browser: spend, impressions, engagements, CTR and CPM a day`);
}
