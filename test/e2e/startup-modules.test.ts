// What a short command loads beyond the HTTP request itself (issue 28): node's own modules that
// a plain `http.get` script does not need cost every call of a shell loop. Each is loaded on
// first use instead: node:os (the home folder is HOME), node:module (createRequire), node:zlib
// (one ads verb's reports), perf_hooks (the `performance` global; the trace times with
// Date.now), the ES module loader (what node:module loads with it).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const t = useTestSandbox();

/** node's module list at exit of `xctl ...args`, with the code cache in a fresh HOME. */
async function modulesOf(args: string[]): Promise<string[]> {
  const home = tempDir('xctl-mods-');
  t.dirs.push(home);
  const list = path.join(home, 'modules.txt');
  const preload = path.join(home, 'preload.cjs');
  fs.writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
  );
  // Twice: the first call writes the code cache, the second reads it (what a shell loop runs).
  for (let i = 0; i < 2; i++) {
    const r = await t.run(args, {
      env: { NODE_OPTIONS: `--require ${preload}`, HOME: home, XDG_CACHE_HOME: undefined },
    });
    expect(r.code, r.stderr).toBe(0);
  }
  expect(fs.readdirSync(path.join(home, '.cache/xctl/compile-cache')).length).toBeGreaterThan(0);
  return fs.readFileSync(list, 'utf8').split('\n');
}

// (node:http itself loads internal/perf/observe and what it needs; perf_hooks brings the rest.)
const NOT_NEEDED =
  /^NativeModule (os|module|zlib|perf_hooks|internal\/perf\/(performance|usertiming)|internal\/modules\/esm\/loader)$/;

describe('a short command loads only what it uses', () => {
  it('webhooks list: the HTTP stack, not os, module, zlib, perf_hooks or the ES module loader', async () => {
    const loaded = await modulesOf(['webhooks', 'list', '-o', 'json']);
    expect(loaded).toContain('NativeModule http');
    expect(loaded.filter((m) => NOT_NEEDED.test(m))).toEqual([]);
  });

  it('ads campaigns list and config path: the same', async () => {
    const ads = await modulesOf(['ads', 'campaigns', 'list', '-o', 'json']);
    expect(ads).toContain('NativeModule http');
    expect(ads.filter((m) => NOT_NEEDED.test(m))).toEqual([]);
    const config = await modulesOf(['config', 'path']);
    expect(config.filter((m) => NOT_NEEDED.test(m))).toEqual([]);
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
  const env = { NODE_OPTIONS: `--require ${preload}`, HOME: home, XDG_CACHE_HOME: undefined };
  const r = await t.run(args, { env });
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
