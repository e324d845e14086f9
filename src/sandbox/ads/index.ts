// Emulator behaviour by resource name (see behaviour.ts).
import type { Behaviour } from './behaviour.js';
import { LINE_ITEMS } from './line-items.js';

export const BEHAVIOURS: Record<string, Behaviour> = {
  line_items: LINE_ITEMS,
};
