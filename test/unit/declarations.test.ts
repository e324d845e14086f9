// One declaration form (issue 27 item 4): every command is built by `declare` (src/commands/
// define.ts), and nothing in src/ reads or writes a private field of commander's objects.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The underscore members commander's own code uses (`this._actionHandler`...). */
function commanderPrivates(): Set<string> {
  const lib = path.join(ROOT, 'node_modules/commander/lib');
  const names = new Set<string>();
  for (const f of fs.readdirSync(lib)) {
    for (const m of fs.readFileSync(path.join(lib, f), 'utf8').matchAll(/\.(_[A-Za-z]\w*)/g)) names.add(m[1]!);
  }
  return names;
}

describe('command declarations', () => {
  it('src/ uses no private (underscore) field of commander', () => {
    const privates = commanderPrivates();
    expect(privates.has('_actionHandler')).toBe(true); // the list is real
    const uses: string[] = [];
    for (const f of sources(path.join(ROOT, 'src'))) {
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:\.|\[['"])(_[A-Za-z]\w*)/g)) {
        if (privates.has(m[1]!)) uses.push(`${path.relative(ROOT, f)}: ${m[1]}`);
      }
    }
    expect(uses).toEqual([]);
  });

  it('every action is set by declare (define.ts): one declaration form', () => {
    const others = sources(path.join(ROOT, 'src'))
      .filter((f) => !f.endsWith(path.join('commands', 'define.ts')))
      .filter((f) => /\.action\(/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    expect(others).toEqual([]);
  });
});
