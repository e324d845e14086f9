// Cursor pagination as an async iterator. Without --all or --limit only the first page is read.
import { ApiError, UsageError } from './errors.js';

/** Empty pages in a row that still name a next cursor: a server leading --all on for ever. */
export const MAX_EMPTY_PAGES = 10;

export interface Page<T> {
  items: T[];
  next?: string | null;
}

export interface PaginateOptions {
  all?: boolean;
  limit?: number;
  /** Starting cursor (--cursor). */
  cursor?: string;
  /** Filled in when the iteration ends with pages left unread (for "more results" and --include-cursor). */
  state?: PageState;
}

/**
 * Where a list stopped. `next`: the cursor of the first unread page, when every page before it
 * was printed whole. `more`: pages are left (also when --limit stopped inside a page, where no
 * cursor resumes exactly at the next record).
 */
export interface PageState {
  more?: boolean;
  next?: string;
  /** The flag that starts a list at a cursor (`--cursor`), when the command has one. */
  flag?: string;
}

export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  opts: PaginateOptions = {},
): AsyncGenerator<T> {
  let cursor = opts.cursor;
  let seen = 0;
  const follow = opts.all || opts.limit !== undefined;
  const visited = new Set<string>();
  let empty = 0;
  for (;;) {
    const page = await fetchPage(cursor);
    empty = page.items.length === 0 ? empty + 1 : 0;
    for (const item of page.items) {
      if (opts.limit !== undefined && seen >= opts.limit) {
        if (opts.state) opts.state.more = true; // records of this page are left
        return;
      }
      seen++;
      yield item;
    }
    if (!page.next) return;
    if ((opts.limit !== undefined && seen >= opts.limit) || !follow) {
      if (opts.state) Object.assign(opts.state, { more: true, next: page.next });
      return;
    }
    if (visited.has(page.next)) return; // a server repeating a cursor must not loop us forever
    if (empty >= MAX_EMPTY_PAGES) {
      throw new ApiError(
        `stopped following next_cursor after ${MAX_EMPTY_PAGES} empty pages in a row (${seen} records read)`,
        {
          hint: 'the server keeps answering empty pages with a new cursor; the records above are complete up to here',
        },
      );
    }
    visited.add(page.next);
    cursor = page.next;
  }
}

export function parseLimit(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1)
    throw new UsageError(`--limit must be a whole number of at least 1 (got "${v}")`, { flag: '--limit' });
  return Number(v);
}
