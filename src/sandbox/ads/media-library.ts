// The ads media library in the emulator takes the keys of real uploads (platform-notes-2 section
// 3): an unknown, other user's or expired key is 404 MEDIA_NOT_FOUND; adding a key twice answers
// with the existing object; the object's type, size and status come from the upload
// (TRANSCODING while it processes, TRANSCODE_FAILED when it failed).
import type { ResourceDef, SandboxHooks, SandboxOps } from '../../ads/resource-types.js';
import type { Behaviour } from './behaviour.js';

type Rec = Record<string, unknown>;

interface UploadView {
  id: string;
  media_key: string;
  owner: string;
  additional_owners: string[];
  media_type: string;
  media_category: string;
  total_bytes: number;
  state?: string;
  width?: number;
  height?: number;
  expires_ms: number;
  finalized: boolean;
}

export const LIBRARY_STATUS: Record<string, string> = { pending: 'TRANSCODING', in_progress: 'TRANSCODING', succeeded: 'TRANSCODE_COMPLETED', failed: 'TRANSCODE_FAILED' };

function gcd(a: number, b: number): number {
  return b ? gcd(b, a % b) : a;
}

function uploadOf(ops: SandboxOps, key: string): UploadView | undefined {
  const id = key.split('_')[1] ?? '';
  const u = ops.collection('media_uploads').get(id) as unknown as UploadView | undefined;
  return u && u.media_key === key ? u : undefined;
}

/** The media library's behaviour: the table's own create (defaults by key prefix) after the upload checks. */
export function mediaLibraryBehaviour(table: ResourceDef): Behaviour {
  const base: SandboxHooks = table.sandbox ?? {};
  return {
    hooks: {
      create(entity, ops) {
        const key = String(entity.media_key);
        const have = ops.collection('media_library').get(key);
        if (have && have.account_id === ops.accountId && !have.deleted) return { existing: have };
        const u = uploadOf(ops, key);
        if (!u) return ops.fail(404, 'MEDIA_NOT_FOUND', `media_key ${key} is not an upload of this account's users (upload it with \`xctl media upload\`)`, 'media_key');
        const promotable = [...ops.collection('promotable_users').values()].filter((p) => p.account_id === ops.accountId).map((p) => String(p.user_id));
        const owners = [u.owner, ...u.additional_owners];
        const mine = owners.includes(ops.userId) || owners.some((o) => promotable.includes(o));
        if (!mine || !u.finalized || ops.nowMs() >= u.expires_ms) {
          ops.fail(404, 'MEDIA_NOT_FOUND', `media_key ${key} is not an upload of this account's users (upload it with \`xctl media upload\`; keys expire 24 h after FINALIZE)`, 'media_key');
        }
        if (have) ops.collection('media_library').delete(key); // re-adding a deleted object starts it afresh
        const res = base.create?.(entity, ops);
        if (res) return res;
        const w = u.width ?? (entity._width as number | undefined);
        const h = u.height ?? (entity._height as number | undefined);
        const g = w && h ? gcd(w, h) : 0;
        Object.assign(entity, {
          media_category: u.media_category.toUpperCase(),
          media_status: LIBRARY_STATUS[u.state ?? 'succeeded'],
          _bytes: u.total_bytes,
          ...(w && h ? { _width: w, _height: h } : {}),
          ...(entity.media_type !== 'IMAGE' && g ? { aspect_ratio: `${w! / g}:${h! / g}` } : {}),
        });
        return undefined;
      },
    },
  };
}

/** Called by the upload module when processing ends: library objects of the key follow its state. */
export function syncLibraryStatus(library: Map<string, Rec>, key: string, state: string): void {
  const e = library.get(key);
  if (e) e.media_status = LIBRARY_STATUS[state];
}
