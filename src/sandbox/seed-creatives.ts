// Seeded creatives so that every creative command has something to act on (README section
// ads-creatives lists them): media library objects of each kind, a preroll account media, and the
// completion job of the seeded scheduled post.
import type { SeedTarget } from './app.js';
import { SEEDED_IDS } from '../contract/sandbox-seed.js';
import { scheduleCompletion } from './ads/creatives.js';
import { libraryDefaults } from './ads/media-library.js';
import { parseIsoTime } from '../contract/time.js';

/** The seeded media library: key -> [name, file name, overrides]. */
export const SEED_MEDIA: Array<[string, string, string, Record<string, unknown>]> = [
  // 1.91:1 and 1200 px wide: fits image poll cards and website cards.
  ['3_1000000000000000011', 'Wide banner', 'wide-banner.png', {}],
  ['3_1000000000000000012', 'Square logo', 'square-logo.png', { aspect_ratio: '1:1', _width: 800, _height: 800 }],
  // 1.91:1 but only 600 px wide: refused by poll cards (at least 800 px).
  ['3_1000000000000000015', 'Small banner', 'small-banner.png', { aspect_ratio: '1.91:1', _width: 600, _height: 314 }],
  ['16_1000000000000000013', 'Dancing logo', 'dance.gif', {}],
  // 16:9 video: fits video cards and video conversation cards.
  [
    '13_1000000000000000014',
    'Launch video',
    'launch.mp4',
    {
      title: 'Launch',
      description: 'Our launch in 15 seconds',
      poster_media_key: '3_1000000000000000011',
      poster_media_url: 'https://pbs.example/media/1000000000000000011.jpg',
    },
  ],
];

export function seedCreatives(app: SeedTarget, base: Record<string, unknown>): void {
  const lib = app.state.collection('media_library');
  for (const [key, name, fileName, extra] of SEED_MEDIA) {
    lib.set(key, {
      id: key,
      media_key: key,
      ...base,
      name,
      file_name: fileName,
      description: null,
      title: null,
      poster_media_key: null,
      poster_media_url: null,
      tweeted: false,
      media_status: 'TRANSCODE_COMPLETED',
      ...libraryDefaults(key),
      ...extra,
    });
  }
  const id = SEEDED_IDS.prerollAccountMedia;
  app.state.collection('account_media').set(id, {
    id,
    ...base,
    video_id: '13_1000000000000000014',
    media_url: 'https://video.example/amplify_video/1000000000000000014/preroll.mp4',
    creative_type: 'PREROLL',
  });
  // The seeded scheduled post goes out at its scheduled_at like any other.
  const posts = app.state.collection('scheduled_tweets');
  for (const p of posts.values()) {
    if (p.scheduled_status === 'SCHEDULED')
      scheduleCompletion(
        posts,
        p.id,
        parseIsoTime(String(p.scheduled_at))!,
        (ms, fn) => void app.clock.at(ms, fn),
        () => app.clock.now(),
      );
  }
}
