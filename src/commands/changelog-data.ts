// The platform change history, docs/contract.md, credentials section 9, newest first. `date` is set
// where the spec gives one; undated entries are known only to be newer than the next dated one.

export interface ChangeEntry {
  change: string;
  detail: string;
  date?: string; // YYYY-MM-DD
}

export const CHANGELOG: ChangeEntry[] = [
  {
    change: 'Search index migration',
    detail:
      '/2/tweets/search/recent, /2/tweets/search/all, /2/tweets/counts/recent, /2/tweets/counts/all moved to a new index; operators min_likes:, min_replies:, min_reposts: available; retweets no longer returned by keyword search; filtered stream unchanged. Earlier, the three count operators had been deprecated on the two search endpoints',
  },
  {
    change: 'Owned-reads pricing',
    date: '2026-04-20',
    detail:
      'reduced per-resource rate (0.001) on own-data endpoints under /2/users/{id}/ (bookmarks, blocking, muting, pinned_lists, tweets, mentions, liked_tweets, followers, following, owned_lists, followed_lists, list_memberships); POST /2/tweets priced 0.20 per post, summoned replies 0.01; following, likes and quote-posts removed from self-serve tiers',
  },
  {
    change: 'Replay consolidation',
    date: '2026-03-25',
    detail:
      'account-activity replay endpoint deprecated effective March 25, 2026 12:00 PM ET; POST /2/webhooks/replay has the same function',
  },
  {
    change: 'Event-type format',
    date: '2026-03-18',
    detail: 'PascalCase to dot-separated lowercase, effective March 18, 2026',
  },
  { change: 'Direction filter', detail: 'optional `direction` on activity subscriptions' },
  { change: 'Legacy DM events', detail: 'dm.received, dm.sent, dm.read, dm.indicate_typing added to the activity API' },
  {
    change: 'Reply restriction',
    detail:
      'programmatic replies through POST /2/tweets allowed only when the original author summoned the replier (mention or quote); self-serve tiers only',
  },
  { change: 'Spaces events', detail: 'spaces.start, spaces.end' },
  { change: 'Account activity v2', detail: 'OAuth 2.0 with fine-grained scopes added' },
  {
    change: 'News endpoints',
    detail:
      'GET /2/news/search, GET /2/news/{id}; field selector `news.fields`: name, summary, contexts, cluster_posts_results, last_updated_at_ms',
  },
  { change: 'Profile events', detail: 'profile.update.verified, .affiliate, .screenname; keyword filtering' },
  {
    change: 'Activity API open beta',
    detail:
      'profile event types, user-ID filter, stream via GET /2/activity/stream, subscriptions via POST /2/activity/subscriptions',
  },
  {
    change: 'Post editing',
    detail:
      'POST /2/posts with `edit_options` object holding `previous_post_id`; own post, created within the last hour, premium subscription',
  },
  {
    change: 'Connections API',
    detail:
      'GET /2/connections; DELETE /2/connections/all; DELETE /2/connections/{endpoint_id}; DELETE /2/connections (by UUID)',
  },
  {
    change: 'Community notes',
    detail:
      'GET /2/notes/search/posts_eligible_for_notes; GET /2/notes/search/notes_written; POST /2/notes; POST /2/evaluate_note',
  },
  { change: 'Filtered stream webhooks', detail: 'launched for enterprise' },
  {
    change: 'Other',
    detail:
      'GET /2/powerstream/rules; boolean `share_with_followers` on POST /2/tweets together with `community_id`; `participant_ids` now only on ParticipantsJoin and ParticipantsLeave direct-message events',
  },
  {
    change: 'Earlier platform items',
    date: '2021-11-23',
    detail:
      'impression_count in public_metrics; verified_type user field (blue, business, government, none); source field removed; alt_text media field (expansion attachments.media_keys plus media.fields=alt_text); long posts up to 25k characters; reply_settings values everyone, mentionedUsers, following; follows endpoints removed from Basic and Pro tiers; manage-blocks removed; statuses/filter deprecated; help/configuration retired; xAuth removed; header names forced to lowercase; DM commands in statuses/update removed (enable_dm_commands, fail_dm_commands); v1.1 oEmbed retired November 23, 2021',
  },
];

/** Each entry with the date it is known to be at or after (undated: the next older dated entry). */
export function withBounds(entries = CHANGELOG): Array<ChangeEntry & { after?: string }> {
  const out: Array<ChangeEntry & { after?: string }> = [];
  let older: string | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.date) older = e.date;
    out.unshift({ ...e, after: e.date ? undefined : older });
  }
  return out;
}
