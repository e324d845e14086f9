import path from 'node:path';
import type { Metafile } from 'esbuild';
import { metafileOf } from '../helpers/metafile.js';
import { beforeAll, describe, expect, it } from 'vitest';

const _ROOT = path.resolve(import.meta.dirname, '../..');
let meta: Metafile;

beforeAll(async () => {
  meta = await metafileOf(['src/main.ts']);
});

/** Everything loaded without an import(), from `entry`: src files and packages. */
function loadedFrom(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const i of meta.inputs[f]?.imports ?? [])
      if (i.kind === 'import-statement') i.external ? seen.add(i.path) : todo.push(i.path);
  }
  return [...seen];
}

const HEAVY = [
  'zod',
  'yaml',
  'ora',
  'cli-table3',
  'open',
  'jq-wasm',
  'libphonenumber-js',
  'oauth-1.0a',
  'node:http',
  'node:https',
];

describe('start-up loads only what it needs', () => {
  it('--help and --version: main, program, the help text, commander; no group, client or emulator', () => {
    const loaded = loadedFrom('src/main.ts');
    expect(loadedFrom('src/program.ts')).toContain('commander'); // the graph is real
    expect(loaded.filter((f) => f.startsWith('src/')).sort()).toEqual(
      [
        'src/commands/runtime.ts',
        'src/contract/service-errors.ts',
        'src/core/command-end.ts',
        'src/core/errors.ts',
        'src/core/fs-errors.ts',
        'src/core/redact.ts',
        'src/core/sanitize.ts',
        'src/main.ts',
      ].sort(),
    );
    expect(loaded.filter((f) => HEAVY.includes(f))).toEqual([]);
    // program.ts is the first import(): the root's options and the group table, nothing more
    // (the runtime, for the streams help goes to, is main.ts's already).
    const program = loadedFrom('src/program.ts').filter((f) => f.startsWith('src/'));
    expect(program.sort()).toEqual([
      'src/commands/annotations.ts',
      'src/commands/help-text.ts',
      'src/commands/runtime.ts',
      'src/program.ts',
    ]);
  });

  it('a command group loads its verbs, but no HTTP client, table renderer, jq or emulator until used', () => {
    for (const group of ['webhooks', 'activity', 'auth', 'config', 'audiences', 'stream', 'media']) {
      const loaded = loadedFrom(`src/commands/${group}/index.ts`);
      expect(loaded.length, group).toBeGreaterThan(3);
      // node:http itself may load with a group (auth's login callback server imports it).
      const late = [
        'src/core/http.ts',
        'src/core/node-transport.ts',
        'src/core/output-table.ts',
        'src/core/jq.ts',
        'yaml',
        'ora',
        'cli-table3',
        'open',
        'jq-wasm',
      ];
      const early = loaded.filter((f) => late.includes(f) || f.startsWith('src/sandbox/'));
      expect(early, group).toEqual([]);
    }
  });
});
