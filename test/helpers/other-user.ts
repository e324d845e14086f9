// A second local user for the tests that play a hostile neighbour: a throwaway system account
// (created when the tests run as root) and `setpriv` to run a command as it. Where that is not
// possible (not root, no setpriv/useradd), `otherUser()` says why and the test skips with it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';

export const OTHER_USER = 'xctl-other';

export interface OtherUser {
  uid: number;
  gid: number;
  /** Runs argv as the other user; resolves with its exit code and output. */
  run(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function idOf(flag: '-u' | '-g'): number | undefined {
  const r = spawnSync('id', [flag, OTHER_USER], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : undefined;
}

/** The other user, or the reason there is none on this machine. */
export function otherUser(): OtherUser | string {
  if (process.getuid?.() !== 0) return 'needs root to switch to a second uid';
  if (spawnSync('setpriv', ['--version']).status !== 0) return 'setpriv (util-linux) is not installed';
  if (idOf('-u') === undefined) {
    try {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', OTHER_USER], {
        stdio: 'ignore',
      });
    } catch {
      // A parallel test file may have created it meanwhile.
      if (idOf('-u') === undefined) return `could not create the user ${OTHER_USER} (useradd failed)`;
    }
  }
  const uid = idOf('-u')!;
  const gid = idOf('-g')!;
  return {
    uid,
    gid,
    // Asynchronous: the sandbox it talks to may run in this very process.
    run(argv) {
      return new Promise((resolve, reject) => {
        const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', ...argv], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    },
  };
}
