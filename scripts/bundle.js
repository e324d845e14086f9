#!/usr/bin/env node
// The runtime the `xctl` command runs: src/ bundled by esbuild into one CommonJS script,
// dist/cli/main.cjs, that bin/xctl.js compiles with V8's code cache (see bin/xctl.js), plus the
// hash worker and a file per heavy third-party library that only some commands need (YAML, the
// spinner, the table renderer, the browser opener), required on first use.
//
// Why one script and not ES module chunks: parsing and compiling JavaScript was half of what a
// short command costs beyond starting node, and Node 20 has no compile cache for ES modules
// (module.enableCompileCache arrived in 22.1). A classic script can be compiled from V8's cached
// data instead (vm.Script cachedData), on every supported Node version. Inside the script, modules
// that a command reaches only through import() stay uncompiled wrappers until called.
//
// tsc still type-checks and emits dist/ (tests import dist/ directly); this step only packages the
// same sources for the command line.
import { build } from 'esbuild';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
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
      if (!src.includes(eager))
        return {
          contents: src,
          loader: 'js',
          warnings: [{ text: 'commander no longer requires child_process as expected: not deferred' }],
        };
      return {
        contents: src.replace(
          eager,
          "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
        ),
        loader: 'js',
      };
    });
  },
};

/**
 * node:crypto costs about 4 ms to load (a dozen internal modules: ciphers, keys, X.509...) and
 * most commands never call it, though modules import it at their top. Imported from our sources,
 * it becomes a module of the same shape whose every export loads node:crypto on first use.
 * node:os (2% of `node -e 0` in instructions) is imported by the config store for a home folder
 * that HOME or XCTL_CONFIG_DIR already gives; node:module (for createRequire, rarely called) loads
 * the ES module loader with it; node:zlib is for one ads verb's gzipped reports.
 */
const LAZY_BUILTINS = ['crypto', 'os', 'module', 'zlib'];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const names = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`);
    b.onResolve({ filter: names }, (args) => {
      if (args.namespace === 'lazy-builtin' || args.importer.includes('node_modules')) return undefined;
      return { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      const real = (await import(`node:${args.path}`)).default;
      const keys = Object.keys(real);
      const fns = keys.filter((k) => typeof real[k] === 'function' && /^[a-z][\w$]*$/.test(k));
      const lines = [
        `let m;\nconst load = () => (m ??= require(${JSON.stringify(`node:${args.path}`)}));`,
        'const lazy = {};',
        `for (const k of ${JSON.stringify(keys)}) Object.defineProperty(lazy, k, { enumerable: true, get: () => load()[k] });`,
        'export default lazy;',
        ...fns.map((k) => `export function ${k}(...a) {\n  return load().${k}(...a);\n}`),
      ];
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/**
 * Third-party libraries some commands need, each its own file beside main.cjs (dist/cli/vendor/).
 * libphonenumber (250 KB, a quarter of the script) only checks `--default-country`.
 */
const VENDOR = {
  yaml: 'yaml',
  ora: 'ora',
  'cli-table3': 'cli-table3',
  open: 'open',
  'libphonenumber-js/min': 'libphonenumber-js',
};
/**
 * Modules of our own that one command needs and no other: the emulator (190 KB) is a script of its
 * own, dist/cli/sandbox.cjs, that `sandbox start` requires. Every other command reads, and
 * deserialises the code cache of, a script that much smaller. The emulator shares no state with
 * the command line (what both import, contract tables and pure functions, is in both files).
 */
const OWN_SCRIPTS = { 'src/sandbox/server.ts': 'sandbox' };
/** Loaded from node_modules at run time: it finds its own WebAssembly file beside itself. */
const EXTERNAL = ['jq-wasm'];
const vendorOut = {
  name: 'vendor-out',
  setup(b) {
    b.onResolve({ filter: /^[a-z@]/ }, (args) => {
      if (args.importer.includes('node_modules')) return undefined;
      if (Object.hasOwn(VENDOR, args.path)) return { path: `./vendor/${VENDOR[args.path]}.cjs`, external: true };
      return undefined;
    });
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind === 'entry-point' || args.importer.includes('node_modules')) return undefined;
      const rel = path.relative(root, path.resolve(args.resolveDir, args.path)).replace(/\.js$/, '.ts');
      if (Object.hasOwn(OWN_SCRIPTS, rel) && path.relative(root, args.importer) !== rel)
        return { path: `./${OWN_SCRIPTS[rel]}.cjs`, external: true };
      return undefined;
    });
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.18',
  // import() of a bundled module becomes a lazily run wrapper; of a library outside, require().
  supported: { 'dynamic-import': false },
  external: EXTERNAL,
  outExtension: { '.js': '.cjs' },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [deferChildProcess],
};

const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
// `--version --json` names the commit built (a CI log shows exactly what ran); "unknown" outside git.
const commit = (() => {
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || 'unknown'
    );
  } catch {
    return 'unknown';
  }
})();
const result = await build({
  ...common,
  // The hash worker is an entry of its own: the worker pool starts it beside main.cjs.
  entryPoints: {
    main: 'src/main.ts',
    'hash-worker': 'src/audiences/hash-worker.ts',
    ...Object.fromEntries(Object.entries(OWN_SCRIPTS).map(([src, name]) => [name, src])),
  },
  outdir,
  define: {
    XCTL_BUILD_VERSION: JSON.stringify(version),
    XCTL_BUILD_COMMIT: JSON.stringify(commit),
    XCTL_HASH_WORKER: JSON.stringify('./hash-worker.cjs'),
    'import.meta.url': '__xctlModuleUrl',
  },
  banner: { js: "const __xctlModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [deferChildProcess, lazyBuiltins, vendorOut],
  metafile: true,
});
/**
 * Each vendor file's module.exports is what `import(lib)` of a CommonJS file gives in Node: the
 * default export itself, with the named ones on it (`const { default: open } = await import('open')`
 * must find the function, as it does unbundled).
 */
const vendorEntry = {
  name: 'vendor-entry',
  setup(b) {
    b.onResolve({ filter: /^vendor-entry:/ }, (args) => ({
      path: args.path.slice('vendor-entry:'.length),
      namespace: 'vendor-entry',
    }));
    b.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, (args) => ({
      contents: `const m = require(${JSON.stringify(args.path)});\nmodule.exports = m && m.__esModule && m.default !== undefined && (typeof m.default === 'function' || typeof m.default === 'object') ? Object.assign(m.default, m) : m;\n`,
      resolveDir: root,
      loader: 'js',
    }));
  },
};
const vendor = await build({
  ...common,
  plugins: [deferChildProcess, vendorEntry],
  entryPoints: Object.fromEntries(Object.entries(VENDOR).map(([spec, name]) => [name, `vendor-entry:${spec}`])),
  outdir: path.join(outdir, 'vendor'),
  metafile: true,
  // `open` finds the xdg-open script it ships beside itself (import.meta.url); without a real URL
  // it takes itself for a browser bundle and needs xdg-utils installed, which many machines lack.
  define: { 'import.meta.url': '__xctlModuleUrl' },
  banner: { js: "const __xctlModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
fs.copyFileSync(path.join(root, 'node_modules/open/xdg-open'), path.join(outdir, 'vendor/xdg-open'));
fs.chmodSync(path.join(outdir, 'vendor/xdg-open'), 0o755);
if (process.env.XCTL_BUNDLE_META) {
  fs.writeFileSync(
    process.env.XCTL_BUNDLE_META,
    JSON.stringify({
      inputs: { ...result.metafile.inputs, ...vendor.metafile.inputs },
      outputs: { ...result.metafile.outputs, ...vendor.metafile.outputs },
    }),
  );
}
// The build's id names its code cache (bin/xctl.js), so a new build never reads an older build's
// cache; the version lets bin/xctl.js answer --version without loading the script.
const hash = crypto.createHash('sha256');
for (const f of ['main.cjs', 'hash-worker.cjs', ...Object.values(OWN_SCRIPTS).map((n) => `${n}.cjs`)])
  hash.update(fs.readFileSync(path.join(outdir, f)));
fs.writeFileSync(
  path.join(outdir, 'build.json'),
  JSON.stringify({ id: hash.digest('hex').slice(0, 16), version }) + '\n',
);
