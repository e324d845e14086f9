// What `audiences apply` remembers per profile and account, beside the sync snapshots: the
// audiences it manages (their ids, the name it gave them, whether it created them) and the
// grants it made. Drift is measured against it (an id gone or renamed, a grant gone), and
// --prune deletes only audiences it created. An intent is written before every create, so an
// apply killed between the create and the record still knows the audience is its own.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../../core/errors.js';
import { withFileLockSync } from '../../core/file-lock.js';
import { ensurePrivateFolder } from '../../core/store-guard.js';

export type AudienceKind = 'custom_audience' | 'do_not_reach';

export interface ManagedGrant {
  permission_id: string;
  level: string;
}

export interface ManagedAudience {
  id: string;
  kind: AudienceKind;
  name: string;
  /** Created by apply (only these may be pruned). */
  created: boolean;
  /** Grants apply made, by granted account. */
  grants: Record<string, ManagedGrant>;
}

export interface AccountState {
  xctl_apply_state: 1;
  audiences: ManagedAudience[];
  /** Creates sent (or about to be) whose answer was not recorded yet. */
  creating: Array<{ kind: AudienceKind; name: string }>;
}

const empty = (): AccountState => ({ xctl_apply_state: 1, audiences: [], creating: [] });

function safe(s: string): string {
  return encodeURIComponent(s).replace(/%/g, '_');
}

/** <state root>/audiences/<profile>/<account>/apply-state.json (the sync snapshots' folder). */
export function statePath(root: string, profile: string, account: string): string {
  return path.join(root, 'audiences', safe(profile), safe(account), 'apply-state.json');
}

export function readState(file: string): AccountState {
  let text: string;
  try {
    // Never through a link: its folder is checked (ensurePrivateFolder), the file opened as is.
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return empty();
    throw e;
  }
  const s = JSON.parse(text) as Partial<AccountState>;
  if (s.xctl_apply_state !== 1) throw new Error(`${file} is not an apply state file`);
  return { ...empty(), ...s } as AccountState;
}

/** Read-modify-write under a lock; the new state replaces the old whole (written aside, renamed). */
export function updateState(file: string, change: (s: AccountState) => void): AccountState {
  ensurePrivateFolder(path.dirname(file));
  return withFileLockSync(`${file}.lock`, () => {
    const s = readState(file);
    change(s);
    // A fresh name, created by this call (O_EXCL), never followed through a link.
    const tmp = `${file}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(s, null, 2) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    return s;
  });
}

export function managedByName(s: AccountState, kind: AudienceKind, name: string): ManagedAudience | undefined {
  return s.audiences.find((a) => a.kind === kind && (kind === 'do_not_reach' || a.name === name));
}
