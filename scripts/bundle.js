#!/usr/bin/env node
// The runtime the `xctl` command runs: src/ bundled by esbuild into CommonJS scripts, the core
// dist/cli/main.cjs and one per command group (group-NAME.cjs, see GROUP_SCRIPTS), that
// bin/xctl.js compiles with V8's code cache (see bin/xctl.js), plus the hash worker, the emulator
// and a file per heavy third-party library that only some commands need (YAML, the spinner, the
// table renderer, the browser opener), required on first use.
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
        // The default export forwards every read to the module, loaded on the first: a proxy costs
        // nothing to make, where a getter per export (zlib's 120-odd, crypto's 80) ran at every
        // start of a script that imports one.
        'const lazy = new Proxy({}, {',
        '  get: (_t, k) => load()[k],',
        '  has: (_t, k) => k in load(),',
        '  ownKeys: () => Reflect.ownKeys(load()),',
        '  getOwnPropertyDescriptor: (_t, k) => {',
        '    const d = Reflect.getOwnPropertyDescriptor(load(), k);',
        '    return d && { ...d, configurable: true };',
        '  },',
        '});',
        'export default lazy;',
        ...fns.map((k) => `export function ${k}(...a) {\n  return load().${k}(...a);\n}`),
      ];
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/**
 * `import fs from 'node:fs'` becomes, in a CommonJS bundle, `__toESM(require('node:fs'), 1)` in
 * every module that says it: a new object with a getter (and a closure) for each of the builtin's
 * exports, fs's hundred-odd, per importing module (7 in main.cjs, 31 in the ads script): 2% of a
 * short command's instructions and half its young-generation garbage. A module whose only use of
 * a builtin is a default import gets it instead from a module of the script's own whose default
 * export is node's module object itself, as `__toESM(..., 1)` makes it: one require, no copy.
 * Named, namespace and dynamic imports (and anything this test cannot read) keep esbuild's way.
 */
const plainBuiltins = {
  name: 'plain-builtins',
  setup(b) {
    const texts = new Map();
    const defaultOnly = (importer, spec) => {
      if (!texts.has(importer)) texts.set(importer, fs.readFileSync(importer, 'utf8'));
      const text = texts.get(importer);
      const q = spec.replace(/[/]/g, '\\/');
      const all = text.match(new RegExp(`['"]${q}['"]`, 'g')) ?? [];
      const clause = `(type\\s+[^;'"]*?|[A-Za-z_$][\\w$]*)`;
      const stmt = new RegExp(`\\bimport\\s+${clause}\\s+from\\s+['"]${q}['"]`, 'g');
      const forms = [...text.matchAll(stmt)].map((m) => m[1]);
      return forms.length === all.length && forms.some((f) => !f.startsWith('type'));
    };
    b.onResolve({ filter: /^node:[a-z_/]+$/ }, (args) => {
      if (args.namespace !== 'file' || args.importer.includes('node_modules')) return undefined;
      if (args.kind !== 'import-statement') return undefined;
      if (!defaultOnly(args.importer, args.path)) return undefined;
      return { path: args.path, namespace: 'plain-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'plain-builtin' }, (args) => ({
      contents: `const m = require(${JSON.stringify(args.path)});\nexport default m;\n`,
      loader: 'js',
    }));
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
  // `xctl mcp` only: the SDK brings its own zod, which must not join the ads group's in the core.
  '@modelcontextprotocol/sdk/server/index.js': 'mcp-server',
  '@modelcontextprotocol/sdk/server/stdio.js': 'mcp-stdio',
  '@modelcontextprotocol/sdk/types.js': 'mcp-types',
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
/**
 * One script per command group (issue 28). `--help` needs none of the groups, `webhooks list` only
 * its own; each script beside main.cjs is read, and its code cache deserialised, only when its
 * group runs. The groups share modules with state (error classes checked with instanceof by
 * main's error mapping, the runtime, the profile store): each module is in exactly one script.
 * What main.ts reaches outside the groups, and what two scripts would both need, is in main.cjs
 * (the core), which hands it to a group script through a table (sharedTable): in a group's
 * script, an import of a core module is a stub that reads the table. A module of one group only
 * is in that group's script. ads and audiences share the ads client and zod (1 MB of sources):
 * one script for both.
 */
const GROUP_SCRIPTS = {
  'src/commands/auth/index.ts': 'auth',
  'src/commands/request.ts': 'request',
  'src/commands/config/index.ts': 'config',
  'src/commands/webhooks/index.ts': 'webhooks',
  'src/commands/activity/index.ts': 'activity',
  'src/commands/account-activity/index.ts': 'account-activity',
  'src/commands/stream/index.ts': 'stream',
  'src/commands/ads/index.ts': 'ads',
  'src/commands/audiences/index.ts': 'ads',
  'src/commands/media/index.ts': 'media',
  'src/commands/sandbox/index.ts': 'sandbox-cmd',
  'src/commands/changelog.ts': 'changelog',
  'src/commands/mcp/index.ts': 'mcp',
  'src/commands/completion.ts': 'completion',
  'src/commands/complete-ids.ts': 'completion',
};
const groupFile = (script) => `./group-${script}.cjs`;
const defines = {
  XCTL_BUILD_VERSION: JSON.stringify(version),
  XCTL_BUILD_COMMIT: JSON.stringify(commit),
  XCTL_HASH_WORKER: JSON.stringify('./hash-worker.cjs'),
  'import.meta.url': '__xctlModuleUrl',
};
const banner = { js: "const __xctlModuleUrl = require('node:url').pathToFileURL(__filename).href;" };

/** Which script each module (a path relative to root) is in: 'core' or a group script's name. */
function ownersOf(meta) {
  const inputs = meta.inputs;
  const reach = (entry, stop) => {
    const seen = new Set();
    const todo = [entry];
    while (todo.length) {
      const f = todo.pop();
      if (seen.has(f) || !inputs[f] || (f !== entry && stop(f))) continue;
      seen.add(f);
      for (const i of inputs[f].imports) if (!i.external) todo.push(i.path);
    }
    return seen;
  };
  const isGroup = (f) => Object.hasOwn(GROUP_SCRIPTS, f);
  const owner = new Map();
  for (const f of reach('src/main.ts', isGroup)) owner.set(f, 'core');
  // Modules of plugins' namespaces (the lazy builtins) are stateless wrappers: one per script.
  for (const f of owner.keys()) if (/^[a-z-]+:/.test(f)) owner.delete(f);
  for (const [entry, script] of Object.entries(GROUP_SCRIPTS)) {
    if (!inputs[entry]) throw new Error(`bundle: no module ${entry} (GROUP_SCRIPTS)`);
    for (const f of reach(entry, isGroup)) {
      if (/^[a-z-]+:/.test(f)) continue;
      const o = owner.get(f);
      owner.set(f, o === undefined || o === script ? script : 'core');
    }
  }
  return owner;
}

const graph = await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outdir,
  write: false,
  metafile: true,
  define: defines,
  plugins: [deferChildProcess, lazyBuiltins, plainBuiltins, vendorOut],
});
const owner = ownersOf(graph.metafile);
const rel = (p) => path.relative(root, p).split(path.sep).join('/');

/**
 * Resolves every import the way the build would, and names the module in root-relative terms
 * (undefined for what is not a file of the bundle: builtins, externals, other namespaces).
 */
async function resolved(b, args) {
  if (args.pluginData?.shared || args.namespace !== 'file') return undefined;
  if (args.path.startsWith('node:') || args.kind === 'entry-point') return undefined;
  const r = await b.resolve(args.path, {
    kind: args.kind,
    importer: args.importer,
    resolveDir: args.resolveDir,
    pluginData: { shared: true },
  });
  if (r.errors.length || r.external || r.namespace !== 'file') return undefined;
  return rel(r.path);
}

/** The core's side: each group import of program.ts loads its script with the shared table. */
const coreSide = (imported) => ({
  name: 'core-side',
  setup(b) {
    b.onResolve({ filter: /^xctl-(table|group:.*)$/ }, (args) => ({ path: args.path, namespace: 'xctl' }));
    b.onResolve({ filter: /^\.\/group-[a-z-]+\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (!args.importer.endsWith(`${path.sep}program.ts`)) return undefined;
      const f = await resolved(b, args);
      return f && Object.hasOwn(GROUP_SCRIPTS, f) ? { path: `xctl-group:${f}`, namespace: 'xctl' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'xctl' }, (args) => {
      if (args.path === 'xctl-table') {
        const rows = [...imported]
          .sort()
          .map((f) => `  ${JSON.stringify(f)}: () => require(${JSON.stringify(path.join(root, f))}),`);
        return { contents: `module.exports = {\n${rows.join('\n')}\n};\n`, loader: 'js', resolveDir: root };
      }
      const f = args.path.slice('xctl-group:'.length);
      const load = `require(${JSON.stringify(groupFile(GROUP_SCRIPTS[f]))})`;
      return {
        contents: `module.exports = ${load}(require('xctl-table'), ${JSON.stringify(f)});\n`,
        loader: 'js',
        resolveDir: root,
      };
    });
  },
});
/** Core modules a group's own module imports: the table's rows. */
const imported = new Set();
for (const [f, input] of Object.entries(graph.metafile.inputs)) {
  const o = owner.get(f);
  if (o === undefined || o === 'core') continue;
  for (const i of input.imports) if (!i.external && owner.get(i.path) === 'core') imported.add(i.path);
}
/** The export names of each of them (an ES module's stub lists them; see groupSide). */
const names = await build({
  ...common,
  entryPoints: [...imported].map((f) => path.join(root, f)),
  format: 'esm',
  splitting: true,
  outdir,
  write: false,
  metafile: true,
  define: defines,
  plugins: [deferChildProcess, lazyBuiltins, plainBuiltins, vendorOut],
});
const exportsOf = new Map(
  Object.values(names.metafile.outputs)
    .filter((o) => o.entryPoint)
    .map((o) => [o.entryPoint, o.exports]),
);
const isIdentifier = (n) => /^[A-Za-z_$][\w$]*$/.test(n);

/**
 * A group script's side. Its module is a function of the core's table: the core calls it with
 * the table and the group wanted (ads and audiences share a script). An import of a core module
 * is a stub that reads the table: for an ES module, its exports (none of ours is a `let` that
 * changes after loading, so the values read once are the module's); for a CommonJS one, its
 * module.exports, to which the importer applies the usual interop.
 */
const groupSide = {
  name: 'group-side',
  setup(b) {
    b.onResolve({ filter: /^xctl-(holder|entry:.*)$/ }, (args) => ({ path: args.path, namespace: 'xctl' }));
    b.onResolve({ filter: /.*/ }, async (args) => {
      const f = await resolved(b, args);
      if (f === undefined) return undefined;
      const o = owner.get(f);
      if (o === 'core') return { path: f, namespace: 'xctl-shared' };
      return undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'xctl' }, (args) => {
      // An ES module: the stubs import `get` as a binding (a CommonJS holder would be copied into
      // each stub by esbuild's interop, __toESM).
      if (args.path === 'xctl-holder')
        return {
          contents: ['let t;', 'export const set = (x) => { t = x; };', 'export const get = (k) => t[k]();'].join('\n'),
          loader: 'js',
        };
      const script = args.path.slice('xctl-entry:'.length);
      const cases = Object.entries(GROUP_SCRIPTS)
        .filter(([, s]) => s === script)
        .map(([f]) => `    case ${JSON.stringify(f)}: return require(${JSON.stringify(path.join(root, f))});`);
      const contents = [
        "const holder = require('xctl-holder');",
        'module.exports = (table, entry) => {',
        '  holder.set(table);',
        '  switch (entry) {',
        ...cases,
        '  }',
        '  throw new Error(`no command group ${entry} in this script`);',
        '};',
      ].join('\n');
      return { contents, loader: 'js', resolveDir: root };
    });
    b.onLoad({ filter: /.*/, namespace: 'xctl-shared' }, (args) => {
      const f = args.path;
      const get = `require('xctl-holder').get(${JSON.stringify(f)})`;
      if (graph.metafile.inputs[f]?.format !== 'esm') return { contents: `module.exports = ${get};\n`, loader: 'js' };
      const all = exportsOf.get(f);
      if (!all) throw new Error(`bundle: no export list for ${f}`);
      const named = all.filter((n) => n !== 'default' && isIdentifier(n));
      const lines = [`import { get } from 'xctl-holder';`, `const m = get(${JSON.stringify(f)});`];
      if (named.length) lines.push(`export const { ${named.join(', ')} } = m;`);
      if (all.includes('default')) lines.push('const d = m.default;', 'export { d as default };');
      return { contents: lines.join('\n'), loader: 'js', resolveDir: root };
    });
  },
};
const groupScripts = [...new Set(Object.values(GROUP_SCRIPTS))];
const groupsBuild = await build({
  ...common,
  entryPoints: Object.fromEntries(groupScripts.map((s) => [`group-${s}`, `xctl-entry:${s}`])),
  outdir,
  define: defines,
  banner,
  plugins: [groupSide, deferChildProcess, lazyBuiltins, plainBuiltins, vendorOut],
  metafile: true,
});
for (const [f, o] of Object.entries(groupsBuild.metafile.inputs)) {
  // A module in two scripts would have two copies of its state: never.
  if (!o || f.startsWith('xctl')) continue;
  if (owner.get(f) === 'core') throw new Error(`bundle: core module ${f} copied into a group script`);
}

const result = await build({
  ...common,
  // The hash worker is an entry of its own: the worker pool starts it beside main.cjs.
  entryPoints: {
    main: 'src/main.ts',
    'hash-worker': 'src/audiences/hash-worker.ts',
    ...Object.fromEntries(Object.entries(OWN_SCRIPTS).map(([src, name]) => [name, src])),
  },
  outdir,
  define: defines,
  banner,
  plugins: [coreSide(imported), deferChildProcess, lazyBuiltins, plainBuiltins, vendorOut],
  metafile: true,
});
/**
 * The table's rows hand an ES module over as esbuild's namespace object itself. `require(esm)`
 * compiles to `(init_x(), __toCommonJS(x_exports))`: a copy of the namespace, a new getter and
 * closure per export, made for every core module a group imports, at every group load (the
 * group's stub reads each export once; the copy only adds garbage). Dropping the call keeps the
 * text's length (spaces instead of the name), so the source map stays exact; a module between
 * the table's rows (an ES module with a wrapper of its own, as in a table of esbuild's making)
 * would make a count differ: the build fails then instead of shipping half of it.
 */
function tableWithoutCopies() {
  const file = path.join(outdir, 'main.cjs');
  const text = fs.readFileSync(file, 'latin1');
  const esm = [...imported].filter((f) => graph.metafile.inputs[f]?.format === 'esm');
  const row = /("src\/[^"]+\.ts":\(\)=>\(init_[\w$]+\(\),)__toCommonJS\(([\w$]+_exports\d*)\)\)/g;
  let n = 0;
  const patched = text.replace(row, (_all, head, ns) => {
    n++;
    return `${head}(${' '.repeat('__toCommonJS'.length)}${ns}))`;
  });
  if (n !== esm.length || patched.length !== text.length)
    throw new Error(`bundle: ${n} table rows without a copy, for ${esm.length} ES modules in it`);
  fs.writeFileSync(file, patched, 'latin1');
}
tableWithoutCopies();

/**
 * bin/xctl.js runs main.cjs and the group scripts as the body of a CommonJS function, which it
 * used to build as `WRAPPER + source + '\n})'`: a second copy of the script that V8 flattens, in
 * the young generation (main.cjs's 250 KB and the group's, twice: a third of what fills it before
 * the first scavenge). The wrapper is in the file instead, on a line of its own (the source map
 * gets an empty first line), so the launcher compiles the text it read. Nothing but the launcher
 * runs these files; required directly, they would define the function and not call it.
 */
const LAUNCHER_WRAPPER = '(function (exports, require, module, __filename, __dirname) {';
function wrapForLauncher(name) {
  const file = path.join(outdir, `${name}.cjs`);
  fs.writeFileSync(file, `${LAUNCHER_WRAPPER}\n${fs.readFileSync(file, 'latin1')}\n})\n`, 'latin1');
  const map = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8'));
  map.mappings = `;${map.mappings}`;
  fs.writeFileSync(`${file}.map`, JSON.stringify(map));
}
for (const name of ['main', ...groupScripts.map((s) => `group-${s}`)]) wrapForLauncher(name);

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
      inputs: { ...result.metafile.inputs, ...groupsBuild.metafile.inputs, ...vendor.metafile.inputs },
      outputs: { ...result.metafile.outputs, ...groupsBuild.metafile.outputs, ...vendor.metafile.outputs },
    }),
  );
}
// The build's id names its code cache (bin/xctl.js), so a new build never reads an older build's
// cache; the version lets bin/xctl.js answer --version without loading the script.
const hash = crypto.createHash('sha256');
const scripts = ['main', 'hash-worker', ...Object.values(OWN_SCRIPTS), ...groupScripts.map((s) => `group-${s}`)];
for (const f of scripts.map((n) => `${n}.cjs`)) hash.update(fs.readFileSync(path.join(outdir, f)));
fs.writeFileSync(
  path.join(outdir, 'build.json'),
  JSON.stringify({ id: hash.digest('hex').slice(0, 16), version }) + '\n',
);
