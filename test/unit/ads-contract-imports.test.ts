// `xctl ads` loads the contract (src/ads/), never the emulator (src/sandbox/): the import graph
// as esbuild bundles it for dist/cli/ (static imports only; a dynamic import is a chunk loaded on
// demand), and a plain scan of the contract files' import lines.
import fs from 'node:fs';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import { metafileOf } from '../helpers/metafile.js';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The src files loaded, without a dynamic import, by any of the entries. */
function staticClosure(meta: Metafile, entries: string[]): string[] {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const i of meta.inputs[f]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) todo.push(i.path);
  }
  return [...seen].filter((f) => f.startsWith('src/'));
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
    );
}

describe('the ads contract does not load the emulator', () => {
  it('xctl ads (main, then the ads command group) loads no src/sandbox/ module', async () => {
    const metafile = await metafileOf(['src/main.ts', 'src/commands/ads/index.ts']);
    const loaded = staticClosure(metafile, ['src/main.ts', 'src/commands/ads/index.ts']);
    // The graph is real: the command group reaches every resource file of the table.
    expect(loaded).toContain('src/ads/resources.ts');
    for (const f of filesUnder('src/ads/resources')) expect(loaded).toContain(f);
    expect(loaded.filter((f) => f.startsWith('src/sandbox/'))).toEqual([]);
    // ...while the sandbox command, loaded on demand, does reach the emulator's ads behaviour.
    expect(Object.keys(metafile.inputs)).toContain('src/sandbox/ads/index.ts');
  });

  it('no file under src/ads/ imports from src/sandbox/', () => {
    const offenders = filesUnder('src/ads').flatMap((f) => {
      const src = fs.readFileSync(path.join(ROOT, f), 'utf8');
      return [
        ...src.matchAll(
          /(?:^|\n)\s*(?:import|export)\b[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
        ),
      ]
        .map((m) => m[1] ?? m[2]!)
        .filter((spec) =>
          path.resolve(path.dirname(path.join(ROOT, f)), spec).startsWith(path.join(ROOT, 'src/sandbox')),
        )
        .map((spec) => `${f}: ${spec}`);
    });
    expect(offenders).toEqual([]);
  });
});
