#!/usr/bin/env node
// `npm run bench`: every figure is a ratio against a baseline measured in the same run,
// alternating the two so that machine noise hits both. Sections live in scripts/bench/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const sections = fs
  .readdirSync(path.join(root, 'scripts/bench'))
  .filter((f) => f.endsWith('.js') && !f.startsWith('_'))
  .sort()
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));

const results = [];
for (const f of sections) {
  const mod = await import(path.join(root, 'scripts/bench', f));
  console.log(`\n== ${mod.title} ==`);
  // The machine may be shared: the load on either side of a section says how quiet it was.
  const before = os.loadavg()[0];
  const rows = await mod.default({ root, log: (s) => console.log(s) });
  const after = os.loadavg()[0];
  rows.push({
    name: `load average (1 min) before / after this section, ${os.cpus().length} cores`,
    value: `${before.toFixed(1)} / ${after.toFixed(1)}`,
  });
  results.push({ title: mod.title, rows });
}

const lines = [
  '# Benchmarks',
  '',
  `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${process.platform}/${process.arch}, ` +
    `${os.cpus().length} cores. Ratios compare against a baseline run alternately in the same process.`,
  '',
];
for (const r of results) {
  lines.push(`## ${r.title}`, '', '| measure | value | target | met |', '| --- | --- | --- | --- |');
  for (const row of r.rows)
    lines.push(
      `| ${row.name} | ${row.value} | ${row.target ?? ''} | ${row.met === undefined ? '' : row.met ? 'yes' : 'NO'} |`,
    );
  lines.push('');
}
// What people wrote under "## Notes" (measurements by hand, before/after) survives a new run.
const file = path.join(root, 'BENCHMARKS.md');
const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
const notes = previous.indexOf('\n## Notes');
if (notes >= 0) lines.push(previous.slice(notes + 1));
if (only.length === 0) fs.writeFileSync(file, lines.join('\n'));
else console.log('\n(partial run: BENCHMARKS.md not rewritten)');
console.log('\n' + lines.join('\n'));
