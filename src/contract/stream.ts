// Filtered stream rules and filtered-stream webhook links (credentials-webhooks.md 6 and 8).
import { endpoint } from './endpoint.js';

const opts = { auth: 'app', rate: 'webhooks', style: 'v2' } as const;

export const STREAM_ENDPOINTS = {
  listRules: endpoint('GET', '/2/tweets/search/stream/rules', { ...opts, doc: "the app's filtered stream rules" }),
  changeRules: endpoint('POST', '/2/tweets/search/stream/rules', {
    ...opts,
    doc: 'add {"add":[{value,tag}]} or delete {"delete":{"ids"}} rules (dry_run)',
  }),
  ruleCounts: endpoint('GET', '/2/tweets/search/stream/rules/counts', {
    ...opts,
    doc: 'rule caps and use (rules_count.fields)',
  }),
  listLinks: endpoint('GET', '/2/tweets/search/webhooks', {
    ...opts,
    doc: 'webhooks linked to the filtered stream {"data":[link]} (OpenAPI 2.167)',
  }),
  /** The quickstart's path, with the older `{"data":{"links":[...]}}` shape. */
  listLinksLegacy: endpoint('GET', '/2/tweets/search/stream/webhooks', {
    ...opts,
    doc: 'linked webhooks, older shape',
  }),
  link: endpoint('POST', '/2/tweets/search/webhooks/:id', {
    ...opts,
    doc: 'deliver matching posts to this webhook (tweet.fields, expansions, ... as the stream)',
  }),
  unlink: endpoint('DELETE', '/2/tweets/search/webhooks/:id', { ...opts, doc: 'stop delivering to this webhook' }),
} as const;

/** Section 8: a rule value is at most 2,048 characters. */
export const RULE_MAX_CHARS = 2048;
/** A rule's tag is at most 200 characters (the platform's stream rules documentation). */
export const RULE_TAG_MAX = 200;
/** Section 8: "25,000 or more rules per project". */
export const RULES_PER_APP = 25_000;

/** The query parameters a link takes, "identical to those used in /2/tweets/search/stream". */
export const LINK_FIELD_PARAMS = [
  'tweet.fields',
  'expansions',
  'media.fields',
  'poll.fields',
  'user.fields',
  'place.fields',
] as const;
