// A citation leads somewhere: the code, tests, scripts and docs cite pages of this repository
// (docs/contract.md and the other docs/ pages) or public sources, never the files the project
// was specified from, which the repository does not have (issue 45 item 5).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SELF = path.relative(ROOT, import.meta.filename);

function files(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (fs.statSync(abs).isFile()) return [dir];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return files(rel);
    return /\.(ts|js|cjs|mjs|py|sh|yml|md)$/.test(e.name) ? [rel] : [];
  });
}

const TREE = ['src', 'test', 'scripts', 'bin', 'docs', 'README.md', 'TESTING.md', 'BENCHMARKS.md']
  .filter((d) => fs.existsSync(path.join(ROOT, d)))
  .flatMap(files)
  .filter((f) => f !== SELF);
// The shared spec's file names, spelled so that this file does not match itself.
const ABSENT = new RegExp(['platform-notes', 'ads-api\\.md', 'credentials-webhooks\\.md', 'DESIGN\\.md'].join('|'));

describe('citations', () => {
  it('no file cites a spec file the repository does not have', () => {
    const hits = TREE.flatMap((f) =>
      fs
        .readFileSync(path.join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          ABSENT.test(line) && !f.endsWith('contract.md') ? [`${f}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(hits).toEqual([]);
  });

  it('every docs/ page cited exists, and every part of docs/contract.md cited is one of its parts', () => {
    const contract = fs.readFileSync(path.join(ROOT, 'docs/contract.md'), 'utf8');
    const parts = new Set([...contract.matchAll(/^## ([a-z0-9-]+):/gm)].map((m) => m[1]));
    expect([...parts]).toEqual(['credentials', 'ads', 'notes', 'notes-2', 'design']);
    const problems: string[] = [];
    for (const f of TREE) {
      const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
      for (const m of text.matchAll(/\bdocs\/([\w./-]+\.md)/g))
        if (!fs.existsSync(path.join(ROOT, 'docs', m[1]!))) problems.push(`${f}: docs/${m[1]} does not exist`);
      for (const m of text.matchAll(/docs\/contract\.md, ([a-z0-9-]+)/g))
        if (!parts.has(m[1]!)) problems.push(`${f}: docs/contract.md has no part "${m[1]}"`);
    }
    expect(problems).toEqual([]);
  });
});
