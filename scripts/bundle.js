#!/usr/bin/env node
// The runtime the `xctl` command runs (dist/cli/): src/ bundled by esbuild with code splitting, so
// that each `import()` in the sources (a command group in src/program.ts, the emulator, a heavy
// library, a rare path) is a script of its own, read and compiled only when a command reaches it.
// esbuild splits ES modules only; each chunk is then turned into CommonJS by esbuild itself, a
// classic script that bin/xctl.js can compile from V8's code cache (vm.Script cachedData) on every
// supported Node version. No list of groups here: a new group in src/program.ts is a new chunk.
//
// tsc still type-checks and emits dist/ (tests import dist/ directly); this step only packages the
// same sources for the command line.
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist/cli');
fs.rmSync(outdir, { recursive: true, force: true });

const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
// `--version --json` names the commit built (a CI log shows exactly what ran); "unknown" outside git.
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: 'pipe' }).trim();
} catch {}

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20.18',
  // jq-wasm finds its WebAssembly file beside itself in node_modules.
  external: ['jq-wasm'],
  outExtension: { '.js': '.cjs' },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  define: {
    XCTL_BUILD_VERSION: JSON.stringify(version),
    XCTL_BUILD_COMMIT: JSON.stringify(commit),
    XCTL_HASH_WORKER: JSON.stringify('./hash-worker.cjs'),
    'import.meta.url': '__xctlModuleUrl',
  },
};
const moduleUrl = "const __xctlModuleUrl = require('node:url').pathToFileURL(__filename).href;";

const split = await build({
  ...common,
  entryPoints: { main: 'src/main.ts' },
  format: 'esm',
  splitting: true,
  outdir,
  write: false,
  sourcemap: 'inline',
});
fs.mkdirSync(outdir, { recursive: true });
for (const f of split.outputFiles) {
  const name = path.basename(f.path);
  // import() becomes require() (which bin/xctl.js answers); the source map goes through to src/.
  const cjs = await transform(f.text, {
    format: 'cjs',
    target: common.target,
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'external',
    sourcefile: name,
    banner: f.text.includes('__xctlModuleUrl') ? moduleUrl : '',
  });
  fs.writeFileSync(f.path, `${cjs.code}//# sourceMappingURL=${name}.map\n`);
  fs.writeFileSync(`${f.path}.map`, cjs.map);
}
// The hash worker is started by node itself (a worker thread), beside the chunks.
await build({
  ...common,
  entryPoints: { 'hash-worker': 'src/audiences/hash-worker.ts' },
  format: 'cjs',
  outdir,
  sourcemap: 'linked',
  banner: { js: moduleUrl },
});
// The `open` package runs the xdg-open script it ships beside itself (import.meta.url).
fs.copyFileSync(path.join(root, 'node_modules/open/xdg-open'), path.join(outdir, 'xdg-open'));
fs.chmodSync(path.join(outdir, 'xdg-open'), 0o755);

// The build's id names its code cache (bin/xctl.js): a new build never reads an older one's.
const hash = crypto.createHash('sha256');
for (const n of fs.readdirSync(outdir).sort())
  if (n.endsWith('.cjs')) hash.update(fs.readFileSync(path.join(outdir, n)));
fs.writeFileSync(path.join(outdir, 'build.json'), `${JSON.stringify({ id: hash.digest('hex').slice(0, 16) })}\n`);
