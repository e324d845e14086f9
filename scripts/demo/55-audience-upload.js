// Audience upload: 100,000 CRM rows normalized, hashed in worker threads, batched, sent and
// journaled; the sandbox counts the distinct users it received.
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  const s = d.sandbox.seed;
  void s;
  const file = path.join(d.configDir, 'crm-export.csv');
  let csv = 'Email,Phone,Name\n';
  for (let i = 0; i < 100_000; i++) {
    const email =
      i % 997 === 5 ? 'not-an-email' : i % 10 === 0 ? ` Customer${i}@Example.COM ` : `customer${i}@example.com`;
    csv += `${email},${i % 3 === 0 ? `(415) 555-${String(i % 10000).padStart(4, '0')}` : ''},"Customer, No. ${i}"\n`;
  }
  fs.writeFileSync(file, csv);

  d.section(
    'Audience upload',
    '100,000 CRM rows: normalized, SHA-256 hashed in worker threads, batched (2500 users), sent 4 at a time, journaled.',
  );
  const created = await d.xctl([
    'audiences',
    'create',
    '--name',
    'Demo CRM export',
    '-o',
    'json',
    '--fields',
    'id,name,audience_size',
  ]);
  const id = JSON.parse(created.stdout).id;
  d.note('the header names the columns; national phone numbers need --default-country; rejected rows go to --rejects');
  const rejects = path.join(d.configDir, 'rejects.csv');
  d.note('on a terminal the progress is a bar; piped (CI), it is one JSON line on stderr every few seconds');
  await d.xctlTTY([
    'audiences',
    'upload',
    id,
    file,
    '--default-country',
    'US',
    '--rejects',
    rejects,
    '--batch-size',
    '1000',
  ]);
  d.note(`rejects file: ${fs.readFileSync(rejects, 'utf8').split('\n').slice(0, 3).join(' | ')} ...`);
  d.note('the sandbox counts the distinct users it holds:');
  await d.xctl(['audiences', 'get', id, '--fields', 'id,name,audience_size']);
  d.note('already-hashed input is never hashed twice: without --hashed it is refused before anything is sent (exit 2)');
  const hashed = path.join(d.configDir, 'hashed.txt');
  fs.writeFileSync(hashed, '49e0be2aeccfb51a8dee4c945c8a70a9ac500cf6f5cb08112575f74db9b1470d\n');
  await d.xctl(['audiences', 'upload', id, hashed, '--type', 'email'], { allowFail: true });
  d.note('--dry-run --out writes each request body as one JSON line and sends nothing:');
  await d.xctl([
    'audiences',
    'upload',
    id,
    file,
    '--default-country',
    'US',
    '--dry-run',
    '--out',
    path.join(d.configDir, 'bodies.jsonl'),
    '-o',
    'json',
  ]);
}
