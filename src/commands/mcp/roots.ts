// The folders a tool may read files from (`xctl mcp --root DIR`, repeatable). A path an agent
// gives is resolved against the first root, then to its real path (every symbolic link followed):
// it must be a root or inside one, so `../`, an absolute path elsewhere and a link pointing out of
// a root are all refused, and with no --root every file is. Stdin ("-") is the server's protocol
// channel, never an input.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../core/errors.js';

export class Roots {
  private constructor(private readonly real: string[]) {}

  /** The --root folders, each resolved to its real path; a root that is not a folder is refused. */
  static of(dirs: string[], cwd: string): Roots {
    const real = dirs.map((d) => {
      let r: string;
      try {
        r = fs.realpathSync(path.resolve(cwd, d));
      } catch {
        throw new UsageError(`--root ${d}: no such folder`, { flag: '--root' });
      }
      if (!fs.statSync(r).isDirectory()) throw new UsageError(`--root ${d}: not a folder`, { flag: '--root' });
      return r;
    });
    return new Roots(real);
  }

  get folders(): readonly string[] {
    return this.real;
  }

  /** The real path of a file a tool reads, or a UsageError naming the flag when it lies outside. */
  confine(value: string, flag: string): string {
    if (value === '-')
      throw new UsageError(`${flag}: stdin is the MCP channel; give a file under a --root folder`, { flag });
    if (this.real.length === 0)
      throw new UsageError(`${flag}: files are refused: the server was started without --root`, {
        flag,
        hint: 'start it with `xctl mcp --root DIR` to let tools read files under DIR',
      });
    const asked = path.resolve(this.real[0]!, value);
    let real: string;
    try {
      real = fs.realpathSync(asked);
    } catch {
      // A file that does not exist yet: its folder must be inside (nothing is read from it).
      real = path.join(this.realFolder(path.dirname(asked), flag), path.basename(asked));
    }
    if (!this.inside(real)) throw this.outside(value, flag);
    return real;
  }

  private realFolder(dir: string, flag: string): string {
    try {
      return fs.realpathSync(dir);
    } catch {
      throw new UsageError(`${flag}: no such folder: ${dir}`, { flag });
    }
  }

  private inside(real: string): boolean {
    return this.real.some((r) => real === r || real.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  }

  private outside(value: string, flag: string): UsageError {
    return new UsageError(`${flag}: ${value} is outside the folders this server may read (--root)`, {
      flag,
      hint: `the roots: ${this.real.join(', ')}`,
    });
  }
}
