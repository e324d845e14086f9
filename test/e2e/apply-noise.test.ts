// Issue 46 item 6: `audiences apply` creating three audiences says each thing once (no
// "no snapshot" twice, no --adopt warning when --adopt was not given, -q silences warnings),
// and a share_with account the service refuses for good (HTTP 400) is exit 2 naming the field,
// not 4 "run the same apply again".
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sb = useTestSandbox();

function project(shareWith: string): string {
  const dir = tempDir('xctl-apply-noise-');
  sb.dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'a.csv'), 'a@example.com\nb@example.com\n');
  fs.writeFileSync(
    path.join(dir, 'audiences.yaml'),
    'defaults: {type: email}\naudiences:\n' +
      '  - {name: A, source: a.csv}\n  - {name: B, source: a.csv}\n' +
      `  - {name: C, source: a.csv, share_with: [${shareWith}]}\n`,
  );
  return path.join(dir, 'audiences.yaml');
}

describe('audiences apply: each warning once, -q silences them, a permanent refusal is exit 2', () => {
  it('three new audiences: no warning twice, no --adopt warning; a stale share_with account: exit 2 naming share_with', async () => {
    const r = await sb.run(['audiences', 'apply', '-f', project('zzzzz'), '--yes', '-o', 'tsv']);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning:'));
    expect(new Set(warnings).size, r.stderr).toBe(warnings.length);
    expect(r.stderr).not.toContain('--adopt');
    expect(r.stderr).not.toContain('new.email.snapshot');
    expect(r.code, r.stderr).toBe(2);
    // The members of C went in before its grant failed: its row says so (not "adds 0").
    const c = r.stdout
      .split('\n')
      .find((l) => l.startsWith('C\t'))!
      .split('\t');
    expect([c[4], c[5]], r.stdout).toEqual(['failed', '2']);
    expect(r.stderr).toMatch(/error: 1 of 3 audiences refused by the service: "C": granted_account_id zzzzz/);
    expect(r.stderr).toMatch(
      /hint: the service refuses this every time: fix the file \(granted_account_id: share_with in the file\)/,
    );
  });

  it('-q: no warnings at all, only the error', async () => {
    const r = await sb.run(['audiences', 'apply', '-f', project('zzzzy'), '--yes', '-q', '-o', 'tsv']);
    expect(r.stderr).not.toContain('warning:');
    expect(r.code).toBe(2);
  });
});
