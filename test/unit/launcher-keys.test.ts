// The launcher (bin/xctl.js) names a command's code cache after its words; a third word is part
// of the name only when it is a command (THIRD_WORDS), so that `ads campaigns get` does not run on
// the cache `ads campaigns list` wrote, and an id in third place does not make a cache file of its
// own. The list must equal the command tree's third words.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, GROUPS, loadGroups } from '../../src/program.js';
import { ROOT } from '../helpers/cli.js';

function launcherWords(): string[] {
  const src = fs.readFileSync(path.join(ROOT, 'bin/xctl.js'), 'utf8');
  const list = /const THIRD_WORDS = new Set\(\[([^\]]*)\]\)/.exec(src);
  if (!list) throw new Error('THIRD_WORDS not found in bin/xctl.js');
  return [...list[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!).sort();
}

describe('launcher cache names', () => {
  it("THIRD_WORDS is every command's third word, no more", async () => {
    const program = buildProgram('0.0.0-test');
    await loadGroups(program, Object.keys(GROUPS));
    const third = new Set<string>();
    const walk = (c: Command, p: string[]) => {
      if (p.length === 3) third.add(p[2]!);
      for (const s of c.commands) if (s.name() !== 'help') walk(s, [...p, s.name()]);
    };
    walk(program, []);
    expect(launcherWords()).toEqual([...third].sort());
  });
});
