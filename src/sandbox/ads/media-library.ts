// The ads media library in the emulator takes the keys of real uploads (docs/contract.md, notes-2 section
// 3): an unknown, other user's or expired key is 404 MEDIA_NOT_FOUND; adding a key twice answers
// with the existing object; the object's type, size and status come from the upload
// (TRANSCODING while it processes, TRANSCODE_FAILED when it failed). Its fields come from the
// key's category (the defaults below), and description, title and poster apply to videos only.
import type { SandboxOps } from '../../ads/resource-types.js';
import { VIDEO_ONLY_FIELDS } from '../../ads/resources/creatives.js';
import { mediaKindOfKey } from '../../ads/rules/cards.js';
import { categoryOfKey } from '../../contract/media.js';
import type { Behaviour } from './behaviour.js';

type Rec = Record<string, unknown>;

/** The library object of a key: it must be the account's and live (cards, polls and posts use it). */
export function libraryItem(ops: SandboxOps, key: string, param: string): Rec & { id: string } {
  const m = ops.collection('media_library').get(key);
  if (!m || m.account_id !== ops.accountId || m.deleted)
    ops.fail(400, 'INVALID_PARAMETER', `${param}: media ${key} is not in the media library of the account`, param);
  return m;
}

function checkLibraryUpdate(entity: Rec, ops: SandboxOps): void {
  if (entity.media_type !== 'VIDEO') {
    const bad = VIDEO_ONLY_FIELDS.find((n) => ops.values[n] !== undefined);
    if (bad) ops.fail(400, 'INVALID_PARAMETER', `${bad} applies to videos only`, bad);
  }
  if (typeof ops.values.poster_media_key === 'string') {
    const poster = libraryItem(ops, ops.values.poster_media_key, 'poster_media_key');
    if (poster.media_type !== 'IMAGE')
      ops.fail(400, 'INVALID_PARAMETER', 'poster_media_key must be an image of the library', 'poster_media_key');
    entity.poster_media_url = poster.media_url;
  }
}

/** What a media key of each category looks like in the sandbox library (an upload stand-in). */
export function libraryDefaults(key: string): Rec | undefined {
  const kind = mediaKindOfKey(key);
  const id = key.split('_')[1];
  const category = categoryOfKey(key)?.toUpperCase();
  if (kind === 'IMAGE')
    return {
      media_type: 'IMAGE',
      media_category: category,
      media_url: `https://pbs.example/media/${id}.jpg`,
      aspect_ratio: '1.91:1',
      duration: null,
      _width: 1200,
      _height: 628,
    };
  if (kind === 'GIF')
    return {
      media_type: 'GIF',
      media_category: category,
      media_url: `https://video.example/tweet_video/${id}.mp4`,
      aspect_ratio: '16:9',
      duration: 3000,
      _width: 480,
      _height: 270,
    };
  if (kind === 'VIDEO') {
    return {
      media_type: 'VIDEO',
      media_category: category,
      media_url: `https://video.example/amplify_video/${id}/vid/1280x720/${id}.mp4`,
      aspect_ratio: '16:9',
      duration: 15000,
      _width: 1280,
      _height: 720,
    };
  }
  return undefined;
}

function pick(e: Rec, keys: string[]): Rec {
  return Object.fromEntries(keys.filter((k) => e[k] !== undefined && e[k] !== null).map((k) => [k, e[k]]));
}

/** A library object of the key: its defaults by category, then the fields the request gave. */
function createFromKey(entity: Rec, ops: SandboxOps): void {
  const key = String(entity.media_key);
  if (ops.collection('media_library').has(key))
    ops.fail(400, 'INVALID_PARAMETER', `media_key ${key} is already in the media library`, 'media_key');
  const defaults = libraryDefaults(key);
  if (!defaults)
    ops.fail(
      400,
      'INVALID_PARAMETER',
      'media_key must be an image (3_), GIF (16_) or video (7_, 13_) key',
      'media_key',
    );
  entity.id = key;
  Object.assign(
    entity,
    {
      name: null,
      file_name: null,
      description: null,
      title: null,
      poster_media_key: null,
      poster_media_url: null,
      ...defaults,
    },
    pick(entity, ['name', 'file_name', 'description', 'title', 'poster_media_key']),
  );
  Object.assign(entity, { tweeted: false, media_status: 'TRANSCODE_COMPLETED' });
  checkLibraryUpdate(entity, ops);
}

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

export const LIBRARY_STATUS: Record<string, string> = {
  pending: 'TRANSCODING',
  in_progress: 'TRANSCODING',
  succeeded: 'TRANSCODE_COMPLETED',
  failed: 'TRANSCODE_FAILED',
};

function gcd(a: number, b: number): number {
  return b ? gcd(b, a % b) : a;
}

function uploadOf(ops: SandboxOps, key: string): UploadView | undefined {
  const id = key.split('_')[1] ?? '';
  // The media module's uploads (sandbox/modules/media.ts `Upload`, of which this is the part the
  // library reads): the ads store holds them under the same name, typed only as entities.
  const u = ops.collection('media_uploads').get(id) as UploadView | undefined;
  return u && u.media_key === key ? u : undefined;
}

/** The media library: a key is added after the upload checks, with the fields the upload says. */
export const MEDIA_LIBRARY: Behaviour = {
  hooks: {
    create(entity, ops) {
      const key = String(entity.media_key);
      const have = ops.collection('media_library').get(key);
      if (have && have.account_id === ops.accountId && !have.deleted) return { existing: have };
      const u = uploadOf(ops, key);
      if (!u)
        return ops.fail(
          404,
          'MEDIA_NOT_FOUND',
          `media_key ${key} is not an upload of this account's users (upload it with \`xctl media upload\`)`,
          'media_key',
        );
      const promotable = [...ops.collection('promotable_users').values()]
        .filter((p) => p.account_id === ops.accountId)
        .map((p) => String(p.user_id));
      const owners = [u.owner, ...u.additional_owners];
      const mine = owners.includes(ops.userId) || owners.some((o) => promotable.includes(o));
      if (!mine || !u.finalized || ops.nowMs() >= u.expires_ms) {
        ops.fail(
          404,
          'MEDIA_NOT_FOUND',
          `media_key ${key} is not an upload of this account's users (upload it with \`xctl media upload\`; keys expire 24 h after FINALIZE)`,
          'media_key',
        );
      }
      if (have) ops.collection('media_library').delete(key); // re-adding a deleted object starts it afresh
      createFromKey(entity, ops);
      const w = u.width ?? (typeof entity._width === 'number' ? entity._width : undefined);
      const h = u.height ?? (typeof entity._height === 'number' ? entity._height : undefined);
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
    update: (entity, _before, ops) => checkLibraryUpdate(entity, ops),
    listFilter: (e, ops) => ops.values.media_type === undefined || e.media_type === ops.values.media_type,
    present: (e) => {
      const { id: _id, account_id: _a, ...rest } = e;
      return rest;
    },
  },
};

/** Called by the upload module when processing ends: library objects of the key follow its state. */
export function syncLibraryStatus(library: Map<string, Rec>, key: string, state: string): void {
  const e = library.get(key);
  if (e) e.media_status = LIBRARY_STATUS[state];
}
