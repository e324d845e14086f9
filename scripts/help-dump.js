// Dumps what a user sees of the command tree from the built CLI: `--help` of every command (the
// tree walked through `xctl completion bash`, which lists every path, hidden ones included), `xctl`
// bare and the three completion scripts, one file each, so that a refactor can be diffed:
//   node scripts/help-dump.js OUT_DIR   (after `npm run build`), then `diff -r BEFORE AFTER`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/xctl.js');
const out = process.argv[2];
if (!out) throw new Error('usage: node scripts/help-dump.js OUT_DIR');
fs.mkdirSync(out, { recursive: true });

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-help-dump-'));
const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', XCTL_CONFIG_DIR: home, LANG: 'C' };

/** stdout, stderr and the exit code of one run (help may exit non-zero on a bare group). */
function run(args) {
  try {
    const stdout = execFileSync(process.execPath, [bin, ...args], { env, encoding: 'utf8', stdio: 'pipe' });
    return `${stdout}\n--- exit 0\n`;
  } catch (e) {
    return `${e.stdout}\n--- stderr\n${e.stderr}\n--- exit ${e.status}\n`;
  }
}

const file = (name) => path.join(out, name.replace(/ /g, '_') || '_root');
const scripts = {};
for (const shell of ['bash', 'zsh', 'fish']) {
  scripts[shell] = run(['completion', shell]);
  fs.writeFileSync(file(`completion.${shell}`), scripts[shell]);
}
// Every key of `_xctl_subs` is a command path ('_' is the root).
const paths = [...scripts.bash.matchAll(/^ {2}\['((?:[^']|'\\'')*)'\]=/gm)]
  .map((m) => m[1])
  .filter((p, i, all) => all.indexOf(p) === i && !p.includes(' --') && !p.startsWith('-'));
const subsBlock = scripts.bash.split('declare -gA _xctl_opts')[0];
const commandPaths = paths.filter((p) => subsBlock.includes(`['${p}']=`));
for (const p of commandPaths) {
  const words = p === '_' ? [] : p.split(' ');
  fs.writeFileSync(file(`help ${p === '_' ? '' : p}`), run([...words, '--help']));
}
fs.writeFileSync(file('bare'), run([]));
fs.rmSync(home, { recursive: true, force: true });
console.log(`${commandPaths.length} commands, 3 completion scripts -> ${out}`);
