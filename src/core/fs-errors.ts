// A file system that refuses a write (full, over quota, read-only, no permission) is the user's
// to fix, not a bug in xctl: say which file and why.
import { XctlError } from './errors.js';

const WHY: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'an input/output error',
};

/** An XctlError for a file system error (a Node error with a code and a path), else undefined. */
export function fileSystemError(e: unknown, what?: string): XctlError | undefined {
  const err = e as NodeJS.ErrnoException;
  if (!(e instanceof Error) || !err.code || !(err.code in WHY) || (!err.path && !what)) return undefined;
  const where = what ?? `${err.syscall ?? 'write'} ${err.path}`;
  return new XctlError(`cannot ${where}: ${WHY[err.code]} (${err.code})`, {
    hint:
      err.code === 'ENOSPC' || err.code === 'EDQUOT'
        ? 'free some space, then run the command again'
        : 'check the folder, or choose another (XCTL_CONFIG_DIR)',
  });
}
