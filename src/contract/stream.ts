// Filtered stream rules and filtered-stream webhook links (docs/contract.md, credentials 6 and 8), with
// their parameters: the CLI checks them before sending and the sandbox on receipt (validate()).
// Each endpoint follows the platform's OpenAPI specification (version 2.167, the operation named
// in `op`); where the recorded platform answers otherwise, `departures` says how.
import { endpoint } from './endpoint.js';
import { isNumericId, NUMERIC_ID_RULE } from './ids.js';
import { param, type CrossRule, type Described, type ParamSpec } from './params.js';
import { webhookIdParam } from './webhooks.js';

const opts = { auth: 'app', rate: 'webhooks', style: 'v2' } as const;

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

/** The fields GET .../rules/counts can add (rules_count.fields). */
export const RULE_COUNT_FIELDS = [
  'all_project_client_apps',
  'cap_per_client_app',
  'cap_per_project',
  'client_app_rules_count',
  'project_rules_count',
] as const;

const lengthShown = (v: unknown) => (typeof v === 'string' ? String(v.length) : JSON.stringify(v));

/**
 * One rule of an `add`: its value (1-2,048 characters, not blank) and its optional tag. Checked
 * per rule: the service answers each refused rule in `errors` (title InvalidRule) and adds none.
 * The rule language itself is the service's to judge (the sandbox: webhooks/rule-match.ts).
 */
export const STREAM_RULE: Described = {
  params: [
    {
      ...param.text('value', { min: 1, max: RULE_MAX_CHARS }, { in: 'body', required: true }),
      refuse: (v) =>
        typeof v === 'string' && v.length > 0 && !v.trim() ? 'must not be empty (only spaces)' : undefined,
    },
    {
      name: 'tag',
      in: 'body',
      rule: `a text of at most ${RULE_TAG_MAX} characters`,
      ok: (v) => typeof v === 'string' && v.length <= RULE_TAG_MAX,
      shown: lengthShown,
      samples: { ok: ['t', 't'.repeat(RULE_TAG_MAX)], bad: ['t'.repeat(RULE_TAG_MAX + 1), 5] },
    },
  ],
  // OpenAPI 2.167 updateRules: an item of `add` is {value, tag} and nothing else.
  closed: [{ at: '', fields: ['value', 'tag'] }],
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** delete_all=true (or 1) asks for every rule to go: the body may then be empty. */
export function deletesAll(query: Record<string, string | undefined> | undefined): boolean {
  return /^(true|1)$/i.test(query?.delete_all ?? '');
}

/** Exactly one of add and delete (XDK: "Exactly one of add, delete ... must be specified"). */
const oneChange: CrossRule = {
  name: 'add',
  in: 'body',
  label: 'add or delete',
  refuse: ({ body, query }) => {
    if (deletesAll(query) && isObject(body) && body.add === undefined) return undefined;
    return !isObject(body) || (body.add === undefined) === (body.delete === undefined)
      ? 'must be given, one of them only: add (an array of {value, tag}) or delete ({ids} or {values})'
      : undefined;
  },
};

const ruleIds: ParamSpec = {
  name: 'delete.ids',
  in: 'body',
  flag: 'rule ids',
  rule: `${NUMERIC_ID_RULE} each`,
  ok: (v) => Array.isArray(v) && v.every(isNumericId),
  shown: (v) => JSON.stringify(Array.isArray(v) ? v.find((x) => !isNumericId(x)) : v),
  samples: { ok: [['1234567890123456789']], bad: [['12', 'abc'], [12]] },
};

/** A comma list of field names, as the stream's own field parameters take them. */
const fieldList = (name: string): ParamSpec => ({
  name,
  in: 'query',
  flag: `--${name.replace('.', '-')}`,
  rule: 'a comma list of field names',
  ok: (v) => typeof v === 'string' && /^[a-z_.]+(,[a-z_.]+)*$/.test(v),
  samples: { ok: ['id', 'id,text'], bad: ['', 'id, text', 'id,,text'] },
});

/** GET rules: `max_results` 1-1000 (default 1000) a page, then `pagination_token` (16 characters). */
export const RULES_PAGE = { min: 1, max: 1000, default: 1000 } as const;
/** The length of a page token of the rules list (OpenAPI 2.167 getRules: minLength = maxLength = 16). */
export const RULES_TOKEN_LENGTH = 16;

const linkId = webhookIdParam('id', 'path', { label: 'webhook_id' });

export const STREAM_ENDPOINTS = {
  listRules: endpoint('GET', '/2/tweets/search/stream/rules', {
    ...opts,
    op: 'getRules',
    doc: "the app's filtered stream rules (ids, max_results, pagination_token)",
    params: [
      param.list('ids', { items: 'id', noun: 'rule ids', min: 0, max: 1000 }, { in: 'query' }),
      param.int('max_results', RULES_PAGE, { in: 'query', flag: '--max-results' }),
      param.token('pagination_token', { min: RULES_TOKEN_LENGTH, max: RULES_TOKEN_LENGTH }, { in: 'query' }),
    ],
    departures: [
      'meta carries `sent` (the recorded answers have it; the specification lists only result_count and next_token)',
    ],
    answer: '{"data"?:[{id,value,tag?}],"meta":{sent,result_count,next_token?}}',
  }),
  changeRules: endpoint('POST', '/2/tweets/search/stream/rules', {
    ...opts,
    op: 'updateRules',
    doc: 'add {"add":[{value,tag}]} or delete {"delete":{"ids"}} rules (dry_run, delete_all)',
    params: [
      // 1 and 0 too, as the platform's boolean query parameters take them.
      param.bool('dry_run', { in: 'query', flag: '--dry-run' }),
      param.bool('delete_all', { in: 'query' }),
      {
        name: 'add',
        in: 'body',
        flag: 'rules',
        rule: 'a non-empty array of {value, tag}',
        ok: (v) => Array.isArray(v) && v.length > 0,
        samples: { ok: [[{ value: 'walk' }]], bad: [[], { value: 'walk' }] },
      },
      {
        name: 'delete',
        in: 'body',
        rule: 'an object with a non-empty "ids" or "values" array',
        ok: (v) => isObject(v) && [v.ids, v.values].some((a) => Array.isArray(a) && a.length > 0),
        samples: { ok: [{ values: ['walk'] }], bad: [{ ids: [] }, ['1']] },
      },
      ruleIds,
    ],
    rules: [oneChange],
    closed: [
      { at: '', fields: ['add', 'delete'] },
      { at: 'add[]', fields: ['value', 'tag'] },
      { at: 'delete', fields: ['ids', 'values'] },
    ],
    departures: [
      'a change that creates rules answers 201 Created (recorded), not 200',
      'meta carries `sent` (recorded)',
    ],
    answer:
      '{"data"?:[{id,value,tag?}],"meta":{sent,summary:{created,not_created,valid,invalid}|{deleted,not_deleted}},"errors"?:[...]}',
  }),
  ruleCounts: endpoint('GET', '/2/tweets/search/stream/rules/counts', {
    ...opts,
    op: 'getRuleCounts',
    doc: 'rule caps and use (rules_count.fields)',
    params: [
      param.list(
        'rules_count.fields',
        { items: RULE_COUNT_FIELDS, noun: 'rule count fields', unique: true },
        { in: 'query' },
      ),
    ],
    departures: [
      'rules_count.fields is a plain string in the specification; its values are those the platform documents',
    ],
    answer: '{"data":{cap_per_client_app,cap_per_project,client_app_rules_count,project_rules_count,...}}',
  }),
  listLinks: endpoint('GET', '/2/tweets/search/webhooks', {
    ...opts,
    op: 'getWebhooksStreamLinks',
    doc: 'webhooks linked to the filtered stream {"data":[link]} (OpenAPI 2.167)',
    answer: '{"data":[{application_id,business_user_id,created_at,fields,instance_id,webhook_id}]}',
  }),
  /** The quickstart's path, with the older `{"data":{"links":[...]}}` shape. */
  listLinksLegacy: endpoint('GET', '/2/tweets/search/stream/webhooks', {
    ...opts,
    doc: 'linked webhooks, older shape',
    answer: '{"data":{"links":[link]}}',
  }),
  link: endpoint('POST', '/2/tweets/search/webhooks/:id', {
    ...opts,
    op: 'createWebhooksStreamLink',
    departures: [
      "the link takes the stream's field parameters (tweet.fields, expansions...), as the platform's filtered-stream webhooks guide says; the specification lists none",
    ],
    doc: 'deliver matching posts to this webhook (tweet.fields, expansions, ... as the stream)',
    params: [linkId, ...LINK_FIELD_PARAMS.map(fieldList)],
    answer: '{"data":{"provisioned":true}}',
  }),
  unlink: endpoint('DELETE', '/2/tweets/search/webhooks/:id', {
    ...opts,
    op: 'deleteWebhooksStreamLink',
    doc: 'stop delivering to this webhook',
    params: [linkId],
    answer: '{"data":{"deleted":true}}',
  }),
} as const;
