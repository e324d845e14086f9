// An audiences file (`audiences apply -f`) names more files, and may name shell commands: its
// `source` paths are confined to the --root folders like any file a tool reads, a `command`
// source is refused outright (a plan runs it; an agent that can put a file under a root must not
// get a shell through it), and so are the file's own guards (`max_removes`, `max_reject_rate`:
// the server's flags set them). Every pair of the document is visited, anchors and merged maps
// included.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { Roots } from './roots.js';

/** Refuses an audiences file with a `command` key, or a `source` outside the roots. */
export async function checkApplyFile(file: string, roots: Roots): Promise<void> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return; // apply names what it cannot read, in its own words
  }
  const mod = await import('yaml');
  // yaml is CommonJS: in the bundle its dynamic import may expose only the default export.
  const lib: typeof mod.default = mod.default ?? mod;
  const doc = lib.parseDocument(text, { uniqueKeys: true });
  const dir = path.dirname(file);
  lib.visit(doc, {
    Pair(_key, pair) {
      const key = lib.isScalar(pair.key) ? pair.key.value : undefined;
      if (key === 'command')
        throw new UsageError(
          `--file: ${file} has a command source: xctl mcp runs no shell command; use a source file`,
          {
            flag: '--file',
          },
        );
      if (key === 'max_removes' || key === 'max_reject_rate')
        throw new UsageError(
          `--file: ${file} sets ${key}: under xctl mcp the guards are the server's (\`xctl mcp --${key.replace(/_/g, '-')}\`)`,
          { flag: '--file' },
        );
      if (key !== 'source') return;
      const v = lib.isScalar(pair.value) ? pair.value.value : undefined;
      if (typeof v !== 'string')
        throw new UsageError(`--file: a source of ${file} is not a plain file name`, { flag: '--file' });
      roots.confine(path.resolve(dir, v), `--file (source ${v})`);
    },
  });
}
