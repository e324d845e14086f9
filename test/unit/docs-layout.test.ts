// The layout the README's "Contributing" section and docs/ARCHITECTURE.md describe is the tree
// on disk: every path they name exists, the README's layout stays ten lines, and every folder of
// src/ appears in the architecture tree.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

/** The first fenced block after a heading line, as lines. */
function blockAfter(text: string, marker: string): string[] {
  const from = text.indexOf(marker);
  expect(from, marker).toBeGreaterThanOrEqual(0);
  const m = /```\n([\s\S]*?)```/.exec(text.slice(from));
  return m![1]!.trimEnd().split('\n');
}

/** The paths a tree line starts with (`src/commands/<group>/` names the folder that holds the groups). */
const pathOf = (line: string) => line.split(/\s+/)[0]!.replace(/<[^>]+>\/$/, '');

describe('the documented layout', () => {
  it("README's Contributing layout: ten lines, each naming a path that exists", () => {
    const lines = blockAfter(read('README.md'), 'The layout, in ten lines:');
    expect(lines).toHaveLength(10);
    for (const l of lines) expect(fs.existsSync(path.join(ROOT, pathOf(l))), l).toBe(true);
    expect(read('README.md')).toContain('(docs/ARCHITECTURE.md)');
  });

  it('docs/ARCHITECTURE.md: every path of its tree exists, and every folder of src/ is in it', () => {
    const lines = blockAfter(read('docs/ARCHITECTURE.md'), '## The tree').filter((l) => /^\S/.test(l));
    const named = lines.map(pathOf);
    for (const p of named) expect(fs.existsSync(path.join(ROOT, p)), p).toBe(true);
    const folders = (dir: string): string[] =>
      fs
        .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => `${dir}/${e.name}/`);
    for (const f of [...folders('src'), ...folders('src/sandbox')]) expect(named, f).toContain(f);
  });
});
