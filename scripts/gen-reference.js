// Writes the command reference from the built program's command tree (`npm run reference`, which
// builds first): docs/reference/ (one Markdown page per command, an index, the global options)
// and docs/man/ (one man page per command, and xctl.1). Both folders are generated whole: files
// of removed commands go. test/unit/reference.test.ts fails when the committed copies are stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { buildProgram, loadGroups, GROUPS } = await import('../dist/program.js');
const { renderReference } = await import('../dist/commands/reference.js');

const program = buildProgram('0.0.0');
await loadGroups(program, Object.keys(GROUPS));
const files = renderReference(program);
for (const dir of ['reference', 'man']) fs.rmSync(path.join(root, 'docs', dir), { recursive: true, force: true });
for (const [name, text] of files) {
  const file = path.join(root, 'docs', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
console.log(`${files.size} files -> docs/reference/, docs/man/`);
