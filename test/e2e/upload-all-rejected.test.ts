import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { useTestSandbox, tempDir } from '../helpers/cli.js';

const t = useTestSandbox();

it('an input where every record is rejected exits 2, sends nothing, and says where the reasons are', async () => {
  const created = await t.run(['audiences', 'create', '--name', 'All rejected', '-o', 'json']);
  expect(created.code, created.stderr).toBe(0);
  const id = JSON.parse(created.stdout).id;
  const dir = tempDir();
  const file = path.join(dir, 'bad.csv');
  fs.writeFileSync(file, 'email\nnot-an-email\nalso bad\n');
  const rejects = path.join(dir, 'rejects.csv');
  const r = await t.run(['audiences', 'upload', id, file, '--rejects', rejects, '--no-progress']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/error: none of the 2 records could be used/);
  expect(r.stderr).toContain(rejects);
  expect(fs.readFileSync(rejects, 'utf8').trim().split('\n')).toHaveLength(3);
  const aud = t.sb.app.state.collection('custom_audiences').get(id) as { audience_size?: number };
  expect(aud.audience_size ?? 0).toBe(0);
  // one good record is enough for success
  fs.writeFileSync(file, 'email\nnot-an-email\nada@example.com\n');
  const ok = await t.run(['audiences', 'upload', id, file, '--no-progress', '--restart']);
  expect(ok.code, ok.stderr).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});
