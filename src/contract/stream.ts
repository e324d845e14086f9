// Filtered stream rules and filtered-stream webhook links (credentials-webhooks.md 6 and 8), with
// their parameters: the CLI checks them before sending and the sandbox on receipt (validate()).
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
    },
  ],
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Exactly one of add and delete (XDK: "Exactly one of add, delete ... must be specified"). */
const oneChange: CrossRule = {
  name: 'add',
  in: 'body',
  label: 'add or delete',
  refuse: ({ body }) =>
    !isObject(body) || (body.add === undefined) === (body.delete === undefined)
      ? 'must be given, one of them only: add (an array of {value, tag}) or delete ({ids} or {values})'
      : undefined,
};

const ruleIds: ParamSpec = {
  name: 'delete.ids',
  in: 'body',
  flag: 'rule ids',
  rule: `${NUMERIC_ID_RULE} each`,
  ok: (v) => Array.isArray(v) && v.every(isNumericId),
  shown: (v) => JSON.stringify(Array.isArray(v) ? v.find((x) => !isNumericId(x)) : v),
};

/** A comma list of field names, as the stream's own field parameters take them. */
const fieldList = (name: string): ParamSpec => ({
  name,
  in: 'query',
  flag: `--${name.replace('.', '-')}`,
  rule: 'a comma list of field names',
  ok: (v) => typeof v === 'string' && /^[a-z_.]+(,[a-z_.]+)*$/.test(v),
});

const linkId = webhookIdParam('id', 'path', { label: 'webhook_id' });

export const STREAM_ENDPOINTS = {
  listRules: endpoint('GET', '/2/tweets/search/stream/rules', {
    ...opts,
    doc: "the app's filtered stream rules",
    params: [
      {
        name: 'ids',
        in: 'query',
        rule: `comma-separated rule ids of ${NUMERIC_ID_RULE}`,
        ok: (v) => typeof v === 'string' && v.split(',').every(isNumericId),
      },
    ],
    answer: '{"data"?:[{id,value,tag?}],"meta":{sent,result_count}}',
  }),
  changeRules: endpoint('POST', '/2/tweets/search/stream/rules', {
    ...opts,
    doc: 'add {"add":[{value,tag}]} or delete {"delete":{"ids"}} rules (dry_run)',
    params: [
      // The sandbox also takes 1 and 0, as the platform's boolean query parameters do.
      {
        name: 'dry_run',
        in: 'query',
        flag: '--dry-run',
        rule: 'true or false',
        ok: (v) => typeof v === 'string' && /^(true|false|1|0)$/i.test(v),
      },
      {
        name: 'add',
        in: 'body',
        flag: 'rules',
        rule: 'a non-empty array of {value, tag}',
        ok: (v) => Array.isArray(v) && v.length > 0,
      },
      {
        name: 'delete',
        in: 'body',
        rule: 'an object with a non-empty "ids" or "values" array',
        ok: (v) => isObject(v) && [v.ids, v.values].some((a) => Array.isArray(a) && a.length > 0),
      },
      ruleIds,
    ],
    rules: [oneChange],
    answer:
      '{"data"?:[{id,value,tag?}],"meta":{sent,summary:{created,not_created,valid,invalid}|{deleted,not_deleted}},"errors"?:[...]}',
  }),
  ruleCounts: endpoint('GET', '/2/tweets/search/stream/rules/counts', {
    ...opts,
    doc: 'rule caps and use (rules_count.fields)',
    params: [
      {
        name: 'rules_count.fields',
        in: 'query',
        rule: `a comma list of ${RULE_COUNT_FIELDS.join(', ')}`,
        ok: (v) =>
          typeof v === 'string' &&
          v.split(',').every((f) => f === '' || (RULE_COUNT_FIELDS as readonly string[]).includes(f)),
      },
    ],
    answer: '{"data":{cap_per_client_app,cap_per_project,client_app_rules_count,project_rules_count,...}}',
  }),
  listLinks: endpoint('GET', '/2/tweets/search/webhooks', {
    ...opts,
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
    doc: 'deliver matching posts to this webhook (tweet.fields, expansions, ... as the stream)',
    params: [linkId, ...LINK_FIELD_PARAMS.map(fieldList)],
    answer: '{"data":{"provisioned":true}}',
  }),
  unlink: endpoint('DELETE', '/2/tweets/search/webhooks/:id', {
    ...opts,
    doc: 'stop delivering to this webhook',
    params: [linkId],
    answer: '{"data":{"deleted":true}}',
  }),
} as const;
