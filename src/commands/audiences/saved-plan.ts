// Saved sync plans for review in CI: `sync --plan --out plan.json` on a pull request, then
// `sync --apply plan.json` on merge, which sends exactly that plan or nothing: it refuses when
// the input's members or the audience's snapshot are no longer what the plan was made from.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, errnoCode, errorMessage } from '../../core/errors.js';
import { writeAtomic } from '../../core/config.js';
import type { SavedPlanCheck, SyncSummary } from '../../audiences/sync.js';

/** The sync options a plan fixes: applying it uses these, whatever the command line says. */
export interface PlannedSync {
  audienceId: string;
  account: string;
  profile: string;
  file: string;
  type?: string;
  column?: string[];
  format: string;
  hashed?: boolean;
  defaultCountry?: string;
  batchSize: string;
  adopt?: boolean;
  maxRemoves?: string;
  stateDir?: string;
}

interface SavedPlan extends PlannedSync, SavedPlanCheck {
  xctl_sync_plan: 1;
  removes: number;
  adds: number;
  created_at: string;
}

export function writeSavedPlan(file: string, p: PlannedSync, s: SyncSummary, now: number): void {
  if (!s.input_digest || !s.state_id) throw new Error('a plan summary without its fingerprint');
  const plan: SavedPlan = {
    xctl_sync_plan: 1,
    ...p,
    file: path.resolve(p.file),
    input_digest: s.input_digest,
    state_id: s.state_id,
    removes: s.removes,
    adds: s.adds,
    created_at: new Date(now).toISOString(),
  };
  try {
    writeAtomic(path.resolve(file), JSON.stringify(plan, undefined, 2) + '\n');
  } catch (e) {
    throw new UsageError(`cannot write the plan ${file}: ${errnoCode(e) ?? errorMessage(e)}`, { flag: '--out' });
  }
}

export function readSavedPlan(file: string): { sync: PlannedSync; check: SavedPlanCheck } {
  let plan: Partial<SavedPlan>;
  try {
    plan = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SavedPlan>;
  } catch (e) {
    const code = errnoCode(e);
    throw new UsageError(`cannot read the plan ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'not JSON')}`, {
      flag: '--apply',
    });
  }
  const strings = [
    'audienceId',
    'account',
    'profile',
    'file',
    'format',
    'batchSize',
    'input_digest',
    'state_id',
  ] as const;
  if (plan?.xctl_sync_plan !== 1 || strings.some((k) => typeof plan[k] !== 'string')) {
    throw new UsageError(`${file} is not a sync plan saved by \`xctl audiences sync --plan --out\``, {
      flag: '--apply',
    });
  }
  const {
    xctl_sync_plan: _v,
    input_digest,
    state_id,
    removes: _r,
    adds: _a,
    created_at: _c,
    ...sync
  } = plan as SavedPlan;
  return { sync, check: { input_digest, state_id } };
}
