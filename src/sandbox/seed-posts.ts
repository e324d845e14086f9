// The posts a fresh sandbox holds: the owner's published posts, with fixed ids so that docs,
// the demo and scripts can promote them (`ads promoted-tweets create --tweet-ids
// 1440000000000000042`). They live in the sandbox's post store, beside the posts of post.create
// events (modules/stream-rules.ts); promoted_tweets refuses an id that is in neither.
import type { SeedTarget } from './app.js';

/** How many posts are seeded: ids 1440000000000000001 to 1440000000000000060. */
export const SEEDED_POSTS = 60;
const FIRST_ID = 1_440_000_000_000_000_001n;

/** The id of seeded post n (1-based). */
export function seededPostId(n: number): string {
  return String(FIRST_ID + BigInt(n - 1));
}

export function seedPosts(app: SeedTarget, ownerId: string, createdAt: string): void {
  const posts = app.state.collection('posts');
  for (let n = 1; n <= SEEDED_POSTS; n++) {
    const id = seededPostId(n);
    posts.set(id, {
      id,
      text: `Sandbox post ${n}: what is new this week`,
      author_id: ownerId,
      created_at: createdAt,
      edit_history_tweet_ids: [id],
    });
  }
}
