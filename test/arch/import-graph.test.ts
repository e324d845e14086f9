// The import graph has no circles and never runs back up a layer (docs/ARCHITECTURE.md "Layers").
// Edges: esbuild's metafile for what is bundled (static and dynamic imports), plus a scan of the
// sources for type-only imports, which esbuild erases but which still tie modules together.
import fs from 'node:fs';
import path from 'node:path';
import { metafileOf } from '../helpers/metafile.js';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Lowest first; a module may import from its own layer's module or any layer below. */
export const LAYERS: string[][] = [
  ['contract'],
  ['core'],
  ['ads', 'webhooks'],
  ['context'],
  ['audiences', 'sandbox'],
  ['commands'],
  ['program'],
  ['main'],
];

/** The top-level module of a src file: src/core/http.ts -> core, src/main.ts -> main. */
export function moduleOf(file: string): string {
  const parts = file.split('/');
  return parts.length === 2 ? parts[1]!.replace(/\.ts$/, '') : parts[1]!;
}

function layerOf(file: string): number {
  const m = moduleOf(file);
  const i = LAYERS.findIndex((l) => l.includes(m));
  if (i < 0) throw new Error(`${file}: module "${m}" is in no layer of LAYERS (docs/ARCHITECTURE.md)`);
  return i;
}

function srcFiles(dir = 'src'): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? srcFiles(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
    );
}

/** Relative imports of any kind in a source file (type-only ones and `import('x').T` included). */
function scannedImports(file: string): string[] {
  const src = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specs = [...src.matchAll(/\bfrom\s+['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2])!,
  );
  return specs.map((s) =>
    path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), s)).replace(/\.js$/, '.ts'),
  );
}

/** Every edge between src files: file -> the files it imports. */
export async function importGraph(): Promise<Map<string, Set<string>>> {
  const metafile = await metafileOf(['src/main.ts', 'src/audiences/hash-worker.ts']);
  const g = new Map<string, Set<string>>();
  const edge = (a: string, b: string) => {
    if (!g.has(a)) g.set(a, new Set());
    if (b.startsWith('src/')) g.get(a)!.add(b);
  };
  for (const [f, v] of Object.entries(metafile.inputs))
    if (f.startsWith('src/')) for (const i of v.imports) edge(f, i.path);
  for (const f of srcFiles()) for (const t of scannedImports(f)) edge(f, t);
  return g;
}

/** The strongly connected components of more than one file (Tarjan): each is an import circle. */
export function circles(g: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('the import graph', () => {
  let g: Map<string, Set<string>>;
  beforeAll(async () => {
    g = await importGraph();
  });

  it('is real: the bundle reaches the layers, and type-only edges are seen', () => {
    expect(g.get('src/main.ts')?.size).toBeGreaterThan(2);
    expect(g.get('src/sandbox/modules/webhooks.ts')).toContain('src/sandbox/app.ts'); // `import type`
  });

  it('has no circle', () => {
    expect(circles(g)).toEqual([]);
  });

  it('never imports up a layer', () => {
    const up: string[] = [];
    for (const [a, bs] of g) for (const b of bs) if (layerOf(b) > layerOf(a)) up.push(`${a} -> ${b}`);
    expect(up).toEqual([]);
  });

  it('finds a circle and an upward import when there is one (the checks can fail)', () => {
    const bad = new Map([
      ['src/core/a.ts', new Set(['src/core/b.ts'])],
      ['src/core/b.ts', new Set(['src/core/a.ts'])],
    ]);
    expect(circles(bad)).toEqual([['src/core/a.ts', 'src/core/b.ts']]);
    expect(layerOf('src/context.ts')).toBeGreaterThan(layerOf('src/core/http.ts'));
  });
});
