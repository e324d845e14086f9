// The start-up budget, as what a command loads rather than how long it takes: the real bin runs
// a command and each script of dist/cli it compiled is read back to the sources in it (the source
// map beside each script names them). `--version` and `--help` load no command group, no zod, no
// emulator and no upload pipeline; a command loads its own group and no other.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir, useTestSandbox } from '../helpers/cli.js';

const t = useTestSandbox();
const CLI = path.join(ROOT, 'dist/cli');

/** The files (root-relative: src/..., node_modules/...) that `xctl ...args` loaded from dist/cli. */
async function sourcesOf(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const home = tempDir('xctl-startup-');
  t.dirs.push(home);
  const log = path.join(home, 'scripts.log');
  const preload = path.join(home, 'preload.cjs');
  fs.writeFileSync(
    preload,
    [
      "const vm = require('node:vm');",
      'const Real = vm.Script;',
      'vm.Script = class extends Real {',
      '  constructor(src, o) {',
      '    super(src, o);',
      `    require('node:fs').appendFileSync(${JSON.stringify(log)}, o.filename + '\\n');`,
      '  }',
      '};',
    ].join('\n'),
  );
  const r = await runCli(args, {
    env: { ...env, NODE_OPTIONS: `--require ${preload}`, XCTL_COMPILE_CACHE: '0', XCTL_CONFIG_DIR: home },
  });
  expect(r.code, r.stderr).toBe(0);
  const scripts = fs.readFileSync(log, 'utf8').trim().split('\n');
  expect(scripts[0]).toBe(path.join(CLI, 'main.cjs'));
  const sources = scripts.flatMap((s) => {
    expect(path.dirname(s)).toBe(CLI);
    const map = JSON.parse(fs.readFileSync(`${s}.map`, 'utf8')) as { sources: string[] };
    return map.sources.map((f) => path.relative(ROOT, path.resolve(CLI, f)));
  });
  return [...new Set(sources)].sort();
}

/** The command groups whose files were loaded: src/commands/NAME/... or a group of one file. */
const groupsIn = (sources: string[]) =>
  [...new Set(sources.flatMap((f) => /^src\/commands\/([a-z-]+)\//.exec(f)?.[1] ?? []))].sort();
const heavy = (sources: string[]) =>
  sources.filter((f) => /^node_modules\/(zod|yaml|ora|cli-table3|open)\/|^src\/(sandbox|audiences)\//.test(f));

describe('start-up loads only what the command needs', () => {
  it('--version: main alone, not even commander', async () => {
    const loaded = await sourcesOf(['--version']);
    expect(loaded).toContain('src/main.ts');
    expect(loaded.filter((f) => f.startsWith('node_modules/'))).toEqual([]);
    expect(groupsIn(loaded)).toEqual([]);
  });

  it('--help: commander and the root, no command group, zod, emulator or upload pipeline', async () => {
    const loaded = await sourcesOf(['--help']);
    expect(loaded).toContain('src/program.ts');
    expect(loaded.some((f) => f.startsWith('node_modules/commander/'))).toBe(true);
    expect(groupsIn(loaded)).toEqual([]);
    expect(heavy(loaded)).toEqual([]);
    expect(loaded.filter((f) => /^src\/(core\/http|ads\/)/.test(f))).toEqual([]);
  });

  it('config path and webhooks list: their own group and no other, no zod, emulator or upload pipeline', async () => {
    const config = await sourcesOf(['config', 'path']);
    expect(groupsIn(config)).toEqual(['config']);
    expect(heavy(config)).toEqual([]);
    const webhooks = await sourcesOf(['webhooks', 'list', '-o', 'json'], t.env);
    expect(groupsIn(webhooks)).toEqual(['webhooks']);
    expect(webhooks).toContain('src/core/http.ts');
    expect(heavy(webhooks)).toEqual([]);
  });

  it('ads campaigns list: the ads group and zod, still no emulator or upload pipeline', async () => {
    const ads = await sourcesOf(['ads', 'campaigns', 'list', '-o', 'json'], t.env);
    expect(groupsIn(ads)).toEqual(['ads']);
    expect(ads.some((f) => f.startsWith('node_modules/zod/'))).toBe(true);
    expect(heavy(ads).filter((f) => !f.startsWith('node_modules/zod/'))).toEqual([]);
  });
});

/**
 * Whether `xctl ...args` asked node for process.stderr (which builds its stream: for a pipe, with
 * node's pipe and socket code).
 */
async function touchesStderr(args: string[], code = 0): Promise<boolean> {
  const home = tempDir('xctl-stderr-');
  t.dirs.push(home);
  const flag = path.join(home, 'touched');
  const preload = path.join(home, 'preload.cjs');
  fs.writeFileSync(
    preload,
    [
      "const d = Object.getOwnPropertyDescriptor(process, 'stderr');",
      'Object.defineProperty(process, "stderr", { configurable: true, get() {',
      `  require('node:fs').writeFileSync(${JSON.stringify(flag)}, 'yes');`,
      '  return d.get.call(this);',
      '} });',
    ].join('\n'),
  );
  const r = await runCli(args, { env: { NODE_OPTIONS: `--require ${preload}`, XCTL_CONFIG_DIR: home } });
  expect(r.code, r.stderr).toBe(code);
  return fs.existsSync(flag);
}

describe('stderr is opened only to write to it', () => {
  // (A command that made a request asks for it too: node's socket teardown compares each socket
  // it destroys with process.stderr.)
  it('--help and config path print no message and never build the stream', async () => {
    expect(await touchesStderr(['--help'])).toBe(false);
    expect(await touchesStderr(['config', 'path'])).toBe(false);
    // The premise: an error message does build it.
    expect(await touchesStderr(['config', 'get', 'no-such-setting'], 2)).toBe(true);
  });
});
