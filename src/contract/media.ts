// Media upload (docs/contract.md, notes-2 section 3, the v2 chunked endpoints): the types, categories,
// limits and key prefixes that `xctl media upload` checks before sending and the sandbox enforces;
// the ads rules (src/ads/rules/cards.ts) read a media key's kind from the same prefixes. The v2
// endpoints follow the platform's OpenAPI specification (version 2.167, the operation in `op`).
import { endpoint } from './endpoint.js';
import { isOneOf } from './guards.js';
import { isNumericId } from './ids.js';
import { param, valueOf, type CrossRule, type Described, type EndpointInput, type ParamSpec } from './params.js';

export const INIT_PATH = '/2/media/upload/initialize';
export const appendPath = (id: string) => `/2/media/upload/${id}/append`;
export const finalizePath = (id: string) => `/2/media/upload/${id}/finalize`;
export const STATUS_PATH = '/2/media/upload';

export const MEDIA_TYPES = [
  'video/mp4',
  'video/webm',
  'video/mp2t',
  'video/quicktime',
  'text/srt',
  'text/vtt',
  'image/jpeg',
  'image/gif',
  'image/bmp',
  'image/png',
  'image/webp',
  'image/pjpeg',
  'image/tiff',
  'model/gltf-binary',
  'model/vnd.usdz+zip',
] as const;
export const CATEGORIES = [
  'amplify_video',
  'tweet_gif',
  'tweet_image',
  'tweet_video',
  'dm_gif',
  'dm_image',
  'dm_video',
  'subtitles',
] as const;
/** What `xctl media upload --category` offers (ads creatives). */
export const CLI_CATEGORIES = ['tweet_image', 'tweet_gif', 'tweet_video', 'amplify_video'] as const;
export type Category = (typeof CATEGORIES)[number];

/** The schema bound of total_bytes; the category limits below are lower. */
export const TOTAL_BYTES_MAX = 17_179_869_184;
const MB = 1024 * 1024;
/** Notes 3 "Sizes": image <= 5 MB, GIF <= 15 MB, video <= 512 MB. */
export const SIZE_LIMITS: Record<'image' | 'gif' | 'video' | 'other', number> = {
  image: 5 * MB,
  gif: 15 * MB,
  video: 512 * MB,
  other: 5 * MB,
};
/** xctl sends 4 MiB chunks (as xurl); the emulator refuses a chunk over 5 MB (notes 3 Proposal). */
export const CHUNK_BYTES = 4 * MB;
export const CHUNK_MAX = 5 * MB;
export const SEGMENT_INDEX_MAX = 999;
/** Notes 3: expires_after_secs of INIT and of FINALIZE. */
export const INIT_EXPIRES_SECS = 1_295_999;
export const FINALIZE_EXPIRES_SECS = 86_400;

export type MediaKind = 'image' | 'gif' | 'video' | 'other';

export function kindOfCategory(c: Category): MediaKind {
  return c.endsWith('_gif') ? 'gif' : c.endsWith('_image') ? 'image' : c.endsWith('_video') ? 'video' : 'other';
}

export function kindOfType(t: string): MediaKind {
  return t === 'image/gif' ? 'gif' : t.startsWith('image/') ? 'image' : t.startsWith('video/') ? 'video' : 'other';
}

/** The category the service picks when INIT names none ("by content type"). */
export function defaultCategory(mediaType: string): Category {
  const k = kindOfType(mediaType);
  return k === 'gif' ? 'tweet_gif' : k === 'video' ? 'tweet_video' : k === 'image' ? 'tweet_image' : 'subtitles';
}

/** media_key prefixes seen in ads examples: 3_ image, 7_ tweet_video, 13_ amplify_video, 16_ tweet_gif. */
const KEY_PREFIXES: Record<Category, string> = {
  amplify_video: '13',
  tweet_gif: '16',
  tweet_image: '3',
  tweet_video: '7',
  dm_gif: '16',
  dm_image: '3',
  dm_video: '7',
  subtitles: '19',
};

export function keyPrefix(c: Category): string {
  return KEY_PREFIXES[c];
}

/** The category a media key's prefix names (the tweet_* one where a dm_* shares it), if any. */
export function categoryOfKey(key: string): Category | undefined {
  const prefix = key.split('_')[0];
  return CATEGORIES.find((c) => KEY_PREFIXES[c] === prefix);
}

/** Why a media type does not fit a category, or undefined when it does. */
export function categoryMismatch(mediaType: string, c: Category): string | undefined {
  const want = kindOfCategory(c);
  const have = kindOfType(mediaType);
  if (want === 'other') return mediaType.startsWith('text/') ? undefined : `category ${c} takes text/srt or text/vtt`;
  if (want === have) return undefined;
  // A GIF may be sent as an image; a video category needs a video.
  if (want === 'image' && have === 'gif') return undefined;
  return `category ${c} takes ${want === 'video' ? 'a video' : want === 'gif' ? 'an image/gif' : 'an image'} (got ${mediaType})`;
}

/** Why a size is refused for a category (the words after `total_bytes`), or undefined. */
export function sizeProblem(bytes: number, c: Category): string | undefined {
  if (bytes === 0) return 'must be more than 0 (the file is empty)';
  const max = SIZE_LIMITS[kindOfCategory(c)];
  return bytes > max ? `must be at most ${max / MB} MB for ${c} (got ${(bytes / MB).toFixed(1)} MB)` : undefined;
}

/** The media type a file's first bytes say it is, when they say. */
export function sniff(head: Uint8Array): string | undefined {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  if (b.subarray(0, 2).toString('latin1') === 'BM') return 'image/bmp';
  // ISO base media (mp4, mov): a first box `ftyp` whose 32-bit size covers at least its header
  // and a major brand (random bytes with "ftyp" at offset 4 are not a container).
  if (b.subarray(4, 8).toString('latin1') === 'ftyp' && b.length >= 12 && b.readUInt32BE(0) >= 12)
    return b.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4';
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'video/webm';
  if (b[0] === 0x47) return 'video/mp2t';
  return undefined;
}

/** Do the first bytes fit the declared type? (pjpeg is JPEG; types the sniffer does not know pass.) */
export function bytesMatchType(head: Uint8Array, mediaType: string): boolean {
  const s = sniff(head);
  if (mediaType === 'image/pjpeg') return s === 'image/jpeg';
  if (['text/srt', 'text/vtt', 'image/tiff', 'model/gltf-binary', 'model/vnd.usdz+zip'].includes(mediaType))
    return true;
  return (
    s === mediaType ||
    (mediaType === 'video/quicktime' && s === 'video/mp4') ||
    (mediaType === 'video/mp4' && s === 'video/quicktime')
  );
}

/** Pixel size of a PNG, GIF or JPEG from its bytes (undefined when not found). */
export function imageSize(b: Buffer): { w: number; h: number } | undefined {
  if (sniff(b) === 'image/png' && b.length >= 24) return { w: b.readUInt32BE(16), h: b.readUInt32BE(20) };
  if (sniff(b) === 'image/gif' && b.length >= 10) return { w: b.readUInt16LE(6), h: b.readUInt16LE(8) };
  if (sniff(b) === 'image/jpeg') {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      const len = b.readUInt16BE(i + 2);
      // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
        return { h: b.readUInt16BE(i + 5), w: b.readUInt16BE(i + 7) };
      i += 2 + len;
    }
  }
  return undefined;
}

// The parameters of each step, described once: the CLI checks INIT before sending (its flags
// and the file it reads), the sandbox every form on receipt (v2 JSON, v1.1 form and multipart).

/** The category an upload gets: the one named, else the service's pick by content type. */
function categoryOf(input: EndpointInput): Category | undefined {
  const c = valueOf(input, 'body', 'media_category');
  const t = valueOf(input, 'body', 'media_type');
  if (isOneOf(CATEGORIES, c)) return c;
  return typeof t === 'string' && isOneOf(MEDIA_TYPES, t) ? defaultCategory(t) : undefined;
}

/** total_bytes within its category's limit (notes 3 "Sizes"); the CLI's subject is the file. */
const sizeRule: CrossRule = {
  name: 'total_bytes',
  in: 'body',
  flag: '<file>',
  refuse: (input) => {
    const bytes = valueOf(input, 'body', 'total_bytes');
    const c = categoryOf(input);
    return typeof bytes === 'number' && c ? sizeProblem(bytes, c) : undefined;
  },
};

/** The media type suits the category (a GIF may go as an image; subtitles are text). */
const categoryRule: CrossRule = {
  name: 'media_category',
  in: 'body',
  flag: '--category',
  refuse: (input) => {
    const t = valueOf(input, 'body', 'media_type');
    const c = categoryOf(input);
    const why = typeof t === 'string' && c ? categoryMismatch(t, c) : undefined;
    return why === undefined ? undefined : `must suit the media type: ${why}`;
  },
};

const ownersParam: ParamSpec = {
  name: 'additional_owners',
  in: 'body',
  rule: 'at most 100 user ids of 1-19 digits',
  ok: (v) => Array.isArray(v) && v.length <= 100 && v.every(isNumericId),
  samples: { ok: [['1234567890123456789']], bad: [['abc'], '123'] },
};

/** INIT: what the upload will be (v2 JSON; the v1.1 form and the one-shot forms read into it). */
export const INIT: Described = {
  params: [
    {
      ...param.oneOf('media_type', MEDIA_TYPES, { in: 'body', flag: '<file>', required: true }),
      rule: 'a supported media type (image/png, image/jpeg, image/gif, image/webp, video/mp4, video/quicktime, text/srt...)',
      samples: { ok: ['video/mp4', 'video/quicktime'], bad: ['video/avi', 4] },
    },
    {
      name: 'total_bytes',
      in: 'body',
      flag: '<file>',
      required: true,
      rule: `a whole number of bytes from 0 to ${TOTAL_BYTES_MAX}`,
      ok: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= TOTAL_BYTES_MAX,
      samples: { ok: [1, 1000], bad: [-1, 1.5, '1000', TOTAL_BYTES_MAX + 1] },
    },
    {
      ...param.oneOf('media_category', CATEGORIES, { in: 'body', flag: '--category' }),
      samples: { ok: ['tweet_video', 'amplify_video'], bad: ['nope', 1] },
    },
    ownersParam,
  ],
  rules: [sizeRule, categoryRule],
};

/** APPEND: one segment, its index and bytes (multipart `media`, or base64 `media_data`). */
export const APPEND: Described = {
  params: [
    {
      name: 'segment_index',
      in: 'body',
      required: true,
      rule: `a whole number from 0 to ${SEGMENT_INDEX_MAX}`,
      ok: (v) => typeof v === 'string' && /^\d{1,3}$/.test(v) && Number(v) <= SEGMENT_INDEX_MAX,
    },
    {
      name: 'media',
      in: 'body',
      required: true,
      rule: `the bytes of the segment, at most ${CHUNK_MAX} bytes`,
      ok: (v) => Buffer.isBuffer(v) && v.length <= CHUNK_MAX,
      shown: (v) => (Buffer.isBuffer(v) ? `${v.length} bytes` : JSON.stringify(v)),
    },
  ],
};

const mediaIdPath = param.id('id', { in: 'path', label: 'media_id', required: true });

/** segment_index of a v2 APPEND: an integer in JSON, its digits in multipart. */
const segmentIndex: ParamSpec = {
  name: 'segment_index',
  in: 'body',
  required: true,
  rule: `a whole number from 0 to ${SEGMENT_INDEX_MAX}`,
  ok: (v) =>
    (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= SEGMENT_INDEX_MAX) ||
    (typeof v === 'string' && /^\d{1,3}$/.test(v)),
  samples: { ok: [0, SEGMENT_INDEX_MAX], bad: [SEGMENT_INDEX_MAX + 1, -1, 1.5, 'abc'] },
};

/** The segment's bytes (multipart), or base64 text (JSON): the sandbox reads either into bytes. */
const segmentBytes: ParamSpec = {
  ...APPEND.params![1]!,
  ok: (v) =>
    (Buffer.isBuffer(v) && v.length <= CHUNK_MAX) ||
    (typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v) && Buffer.byteLength(v, 'base64') <= CHUNK_MAX),
  samples: { ok: [Buffer.from('segment').toString('base64')], bad: [5, '*not base64*'] },
};
/** The upload a v2 APPEND or FINALIZE names in its path. */
export const MEDIA_ID_PATH: Described = { params: [mediaIdPath] };
const mediaIdQuery = param.id('media_id', { in: 'query', required: true });
const statusCommand = param.oneOf('command', ['STATUS'], { in: 'query' });
const command = {
  ...param.oneOf('command', ['INIT', 'APPEND', 'FINALIZE'], { in: 'body' }),
  samples: { ok: [], bad: ['STATUS'] },
};

/** Without a command, the request is the whole file: `media` (or v1.1's `media_data`) is required. */
const wholeFile = (names: string): CrossRule => ({
  name: 'media',
  in: 'body',
  refuse: (input) => {
    const has = (k: string) => valueOf(input, 'body', k) !== undefined;
    if (has('command') || has('media') || has('media_data')) return undefined;
    return `is required (${names}), or a command: INIT, APPEND or FINALIZE`;
  },
});

/** A whole file goes with its category (the v2 one-shot form). */
const wholeFileCategory: CrossRule = {
  name: 'media_category',
  in: 'body',
  refuse: (input) =>
    valueOf(input, 'body', 'command') === undefined && valueOf(input, 'body', 'media_category') === undefined
      ? 'is required with the file (tweet_image, tweet_gif, tweet_video, amplify_video...)'
      : undefined,
};

/** v1.1 takes the file as `media` (bytes) or `media_data` (base64), not both. */
const oneFile: CrossRule = {
  name: 'media',
  in: 'body',
  refuse: (input) =>
    valueOf(input, 'body', 'media') !== undefined && valueOf(input, 'body', 'media_data') !== undefined
      ? 'or media_data: send one of them, not both'
      : undefined,
};

const media = { auth: 'user', style: 'v2', rate: 'media' } as const;

/** The chunked upload (docs/contract.md, notes "Media upload"), as the CLI calls it and the sandbox serves it. */
export const MEDIA_ENDPOINTS = {
  initialize: endpoint('POST', INIT_PATH, {
    ...media,
    op: 'initializeMediaUpload',
    doc: 'start an upload {media_type,total_bytes,media_category,additional_owners?,shared?}',
    ...INIT,
    params: [...(INIT.params ?? []), param.flag('shared', { in: 'body' })],
    closed: [{ at: '', fields: ['additional_owners', 'media_category', 'media_type', 'shared', 'total_bytes'] }],
    departures: ['media_type and total_bytes are required (recorded: the platform refuses an upload without them)'],
    answer: '{"data":{id,media_key,expires_after_secs}}',
  }),
  append: endpoint('POST', '/2/media/upload/:id/append', {
    ...media,
    op: 'appendMediaUpload',
    doc: 'one chunk (multipart: media, segment_index)',
    params: [mediaIdPath, segmentIndex, segmentBytes],
    closed: [{ at: '', fields: ['media', 'segment_index'] }],
    answer: '{"data":{expires_at}}',
  }),
  finalize: endpoint('POST', '/2/media/upload/:id/finalize', {
    ...media,
    op: 'finalizeMediaUpload',
    doc: 'end the upload',
    params: [mediaIdPath],
    answer: '{"data":{id,media_key,size,expires_after_secs,processing_info?}}',
  }),
  status: endpoint('GET', STATUS_PATH, {
    ...media,
    op: 'getMediaUploadStatus',
    doc: 'processing state ?command=STATUS&media_id=',
    params: [statusCommand, mediaIdQuery],
    answer: '{"data":{id,media_key,size,processing_info?}}',
  }),
  /** The v2 one-shot upload (multipart: media, media_category; docs/contract.md, notes-2 section 3). */
  oneShot: endpoint('POST', STATUS_PATH, {
    ...media,
    op: 'mediaUpload',
    doc: 'the whole file in one request (multipart: media, media_category), or command=INIT|APPEND|FINALIZE',
    params: [command],
    rules: [wholeFile('the file'), wholeFileCategory],
    closed: [
      {
        at: '',
        fields: ['media', 'media_category', 'additional_owners', 'media_type'],
        when: (input) => valueOf(input, 'body', 'command') === undefined,
      },
    ],
    departures: [
      'command=INIT|APPEND|FINALIZE on this path is the v1.1 form older clients send (recorded); the specification knows only the whole file',
      'media_type is taken beside the file (the official clients send it)',
    ],
    answer: '{"data":{id,media_key,size,...}}',
  }),
} as const;

const mediaV1 = { auth: 'user', style: 'v1', rate: 'media' } as const;

/** The v1.1 upload the older clients use (tweepy, the Ads SDK): command=INIT|APPEND|FINALIZE, or the whole file. */
export const MEDIA_V1_ENDPOINTS = {
  upload: endpoint('POST', '/1.1/media/upload.json', {
    ...mediaV1,
    doc: 'INIT/APPEND/FINALIZE (command=...), or a simple upload of the whole file',
    params: [command],
    rules: [wholeFile('media or media_data'), oneFile],
    answer: '{media_id,media_id_string,media_key,size,...}',
  }),
  status: endpoint('GET', '/1.1/media/upload.json', {
    ...mediaV1,
    doc: 'processing state ?command=STATUS&media_id=',
    params: [{ ...statusCommand, required: true }, mediaIdQuery],
    answer: '{media_id,media_id_string,media_key,size,processing_info?}',
  }),
} as const;
