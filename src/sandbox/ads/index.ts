// Emulator behaviour by resource name (see behaviour.ts).
import type { Behaviour } from './behaviour.js';
import { LINE_ITEMS, campaignBehaviour } from './line-items.js';
import { TARGETING, TARGETING_OPTIONS } from './targeting.js';
import { STATS, STATS_JOBS } from './stats.js';
import { mediaLibraryBehaviour } from './media-library.js';
import { resourceByName } from '../../ads/resources.js';

export const BEHAVIOURS: Record<string, Behaviour> = {
  campaigns: campaignBehaviour(resourceByName('campaigns')!),
  line_items: LINE_ITEMS,
  targeting_criteria: TARGETING,
  targeting_options: TARGETING_OPTIONS,
  stats: STATS,
  stats_jobs: STATS_JOBS,
  media_library: mediaLibraryBehaviour(resourceByName('media_library')!),
};
