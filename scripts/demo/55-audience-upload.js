// Audience upload: 100,000 CRM rows normalized, hashed in worker threads, batched, sent and
// journaled; the sandbox counts the distinct users it received.
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  const s = d.sandbox.seed;
  const id = 'demoaud1';
  const now = new Date().toISOString();
  // The audience itself (audiences create lives in another command group): made in sandbox state.
  d.sandbox.app.state.collection('custom_audiences').set(id, { id, account_id: s.account_id, name: 'Demo CRM export', description: '', audience_size: 0, deleted: false, created_at: now, updated_at: now });
  const file = path.join(d.configDir, 'crm-export.csv');
  let csv = 'Email,Phone,Name\n';
  for (let i = 0; i < 100_000; i++) {
    const email = i % 997 === 5 ? 'not-an-email' : i % 10 === 0 ? ` Customer${i}@Example.COM ` : `customer${i}@example.com`;
    csv += `${email},${i % 3 === 0 ? `(415) 555-${String(i % 10000).padStart(4, '0')}` : ''},"Customer, No. ${i}"\n`;
  }
  fs.writeFileSync(file, csv);

  d.section('Audience upload', '100,000 CRM rows: normalized, SHA-256 hashed in worker threads, batched (2500 users), sent 4 at a time, journaled.');
  d.note('the header names the columns; national phone numbers need --default-country; rejected rows go to --rejects');
  const rejects = path.join(d.configDir, 'rejects.csv');
  await d.xctl(['audiences', 'upload', id, file, '--default-country', 'US', '--rejects', rejects, '--batch-size', '1000'], {
    extraEnv: { XCTL_PROGRESS_INTERVAL_MS: '150' }, // piped stderr: JSON progress lines (a bar on a terminal)
  });
  d.note(`rejects file: ${fs.readFileSync(rejects, 'utf8').split('\n').slice(0, 3).join(' | ')} ...`);
  d.note(`the sandbox now holds audience_size = ${d.sandbox.app.state.collection('custom_audiences').get(id).audience_size} distinct users`);
  d.note('already-hashed input is never hashed twice: without --hashed it is refused before anything is sent (exit 2)');
  const hashed = path.join(d.configDir, 'hashed.txt');
  fs.writeFileSync(hashed, '49e0be2aeccfb51a8dee4c945c8a70a9ac500cf6f5cb08112575f74db9b1470d\n');
  await d.xctl(['audiences', 'upload', id, hashed, '--type', 'email'], { allowFail: true });
  d.note('--dry-run --out writes each request body as one JSON line and sends nothing:');
  await d.xctl(['audiences', 'upload', id, file, '--default-country', 'US', '--dry-run', '--out', path.join(d.configDir, 'bodies.jsonl'), '-o', 'json']);
}
