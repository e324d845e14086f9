#!/usr/bin/env node
// The runtime the `xctl` command runs: src/ bundled by esbuild into dist/cli/, split into chunks
// that load only when a command needs them (a command group, the table renderer, the sandbox, the
// upload). One file per chunk instead of hundreds of CommonJS modules to resolve and read is most
// of what a short command costs beyond starting node. tsc still type-checks and emits dist/ (tests
// import dist/ directly); this step only packages the same sources for the command line.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist/cli');
fs.rmSync(outdir, { recursive: true, force: true });
/**
 * commander requires child_process when it loads, for executable subcommands that xctl never
 * declares; loading it (with net and dgram) on every start is wasted. Deferred to first use.
 */
const deferChildProcess = {
  name: 'defer-child-process',
  setup(b) {
    b.onLoad({ filter: /commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const src = await fs.promises.readFile(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!src.includes(eager)) return { contents: src, loader: 'js', warnings: [{ text: 'commander no longer requires child_process as expected: not deferred' }] };
      return { contents: src.replace(eager, "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"), loader: 'js' };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  // The hash worker is an entry of its own: pipeline.ts starts it as ./hash-worker.js beside itself.
  entryPoints: { main: 'src/main.ts', 'hash-worker': 'src/audiences/hash-worker.ts' },
  outdir,
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  // Bundled CommonJS packages require() node's built-ins; an ES module has no require of its own.
  banner: { js: "import { createRequire as __xctlCreateRequire } from 'node:module'; const require = __xctlCreateRequire(import.meta.url);" },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  sourcemap: 'linked',
  define: { XCTL_BUILD_VERSION: JSON.stringify(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version) },
  plugins: [deferChildProcess],
  logLevel: 'warning',
  metafile: !!process.env.XCTL_BUNDLE_META,
});
if (process.env.XCTL_BUNDLE_META) fs.writeFileSync(process.env.XCTL_BUNDLE_META, JSON.stringify(result.metafile));
