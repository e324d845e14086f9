// An internal error's stack names src/ files and lines, not the minified bundle: a tiny program
// bundled as the build bundles (minified, one CommonJS script, a linked source map) throws, and
// its frames map back to the source line that threw, also when the frame names the bundle of
// another checkout (V8's code cache keeps the name of the script that wrote it).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapBuildStack, mapStack } from '../../src/core/stack.js';

let root: string;
let stack: string;
beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-stack-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(
    path.join(root, 'src/boom.ts'),
    'export function boom(n: number): number {\n  if (n > 1) return n;\n  throw new Error("boom");\n}\n',
  );
  fs.writeFileSync(
    path.join(root, 'src/main.ts'),
    'import { boom } from "./boom.js";\ntry {\n  boom(0);\n} catch (e) {\n  process.stdout.write((e as Error).stack!);\n}\n',
  );
  await build({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    outfile: path.join(root, 'dist/cli/main.cjs'),
    logLevel: 'silent',
  });
  stack = execFileSync(process.execPath, [path.join(root, 'dist/cli/main.cjs')], { encoding: 'utf8' });
  // The same program as another script of the build (a chunk beside main.cjs, scripts/bundle.js).
  await build({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    outfile: path.join(root, 'dist/cli/group-boom.cjs'),
    logLevel: 'silent',
  });
  const group = path.join(root, 'dist/cli/group-boom.cjs');
  groupStack = execFileSync(process.execPath, [group], { encoding: 'utf8' });
});
let groupStack: string;
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('mapStack', () => {
  it('maps bundle frames to src/ file:line:column', () => {
    expect(stack).toContain('main.cjs:');
    const mapped = mapStack(stack, path.join(root, 'dist/cli/main.cjs.map'));
    expect(mapped).toMatch(/src\/boom\.ts:3:\d+/);
    expect(mapped).toMatch(/src\/main\.ts:3:\d+/);
    expect(mapped).not.toContain('main.cjs:');
  });

  it('maps a frame that names the same bundle in another checkout', () => {
    const elsewhere = stack.replaceAll(path.join(root, 'dist/cli/main.cjs'), '/other/checkout/dist/cli/main.cjs');
    expect(elsewhere).toContain('/other/checkout/');
    expect(mapStack(elsewhere, path.join(root, 'dist/cli/main.cjs.map'))).toMatch(/src\/boom\.ts:3:\d+/);
  });

  it("maps the frames of main.cjs and of a group's script, each through its own map", () => {
    const dir = pathToFileURL(path.join(root, 'dist/cli/'));
    expect(groupStack).toContain('group-boom.cjs:');
    const mapped = mapBuildStack(`${stack}\n${groupStack}`, dir);
    expect(mapped).not.toContain('main.cjs:');
    expect(mapped).not.toContain('group-boom.cjs:');
    expect(mapped.match(/src\/boom\.ts:3:\d+/g)).toHaveLength(2);
  });

  it('leaves the stack as it is without a readable map', () => {
    expect(mapStack(stack, path.join(root, 'dist/cli/none.cjs.map'))).toBe(stack);
  });
});
