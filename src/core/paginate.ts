// Cursor pagination as an async iterator. Without --all or --limit only the first page is read.
import { UsageError } from './errors.js';

export interface Page<T> {
  items: T[];
  next?: string | null;
}

export interface PaginateOptions {
  all?: boolean;
  limit?: number;
  /** Starting cursor (--cursor). */
  cursor?: string;
}

export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, opts: PaginateOptions = {}): AsyncGenerator<T> {
  let cursor = opts.cursor;
  let seen = 0;
  const follow = opts.all || opts.limit !== undefined;
  const visited = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    for (const item of page.items) {
      if (opts.limit !== undefined && seen >= opts.limit) return;
      seen++;
      yield item;
    }
    if (opts.limit !== undefined && seen >= opts.limit) return;
    if (!follow || !page.next) return;
    if (visited.has(page.next)) return; // a server repeating a cursor must not loop us forever
    visited.add(page.next);
    cursor = page.next;
  }
}

export function parseLimit(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--limit must be a whole number of at least 1 (got "${v}")`, { flag: '--limit' });
  return Number(v);
}
