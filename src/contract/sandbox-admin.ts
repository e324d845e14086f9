// The sandbox's own admin endpoints (docs/contract.md, design "Sandbox"): loopback clients only; all but the
// entity counts also take the sandbox app's key and secret as HTTP Basic: on a shared machine
// another user can reach loopback too, and must neither change the state (events, the clock,
// faults) nor read it (the dump holds every token; logs, deliveries, audience members). Not part of the platform; `xctl sandbox ...`,
// the tests and the demo drive the emulator here.
import { endpoint } from './endpoint.js';
import { EVENT_TYPE_PARAM } from './activity.js';
import { isRecord } from './guards.js';
import { ADS_ID } from './ids.js';
import { param, type CrossRule, type ParamSpec } from './params.js';
import { parseDuration } from './time.js';

const admin = { auth: 'admin' } as const;
const adminKey = { auth: 'admin-key' } as const;

/**
 * Every fault the sandbox knows, with the value it takes: the one list `--faults`, `sandbox faults
 * set`, POST /_sandbox/faults and their help read. A name not here would be stored and ignored,
 * so it is refused.
 */
export const FAULT_NAMES = {
  error_rate: { value: '0-1', doc: 'probability of answering with `status` instead of handling the request' },
  status: { value: '400-599', doc: 'the status of injected errors (default 503)' },
  latency_ms: { value: 'ms >= 0', doc: 'delay before each matching request is handled' },
  drop_rate: { value: '0-1', doc: 'probability of closing the connection without an answer' },
  rate_limit: { value: 'whole number', doc: "every rate-limit category's limit per window" },
  match: { value: 'regexp', doc: 'only requests whose path matches' },
  method: { value: 'GET|POST|PUT|DELETE', doc: 'only requests with this method' },
  count: { value: 'whole number', doc: 'at most this many faults, then they stop' },
  after: { value: 'true|false', doc: 'inject after the handler ran (the write happened, the answer is lost)' },
  drop_if_gone: {
    value: 'true|false',
    doc: 'a request whose client disconnected before it was handled is not applied',
  },
  hold: {
    value: 'whole number',
    doc: 'the n-th matching request (from 1) is never handled: held until its client goes away, then dropped',
  },
  short_count_rate: { value: '0-1', doc: 'audience uploads: probability of acknowledging fewer users than sent' },
  stream_drop_rate: { value: '0-1', doc: 'activity stream: probability of dropping the stream after an event' },
} as const satisfies Record<string, { value: string; doc: string }>;

export type FaultName = keyof typeof FAULT_NAMES;

const body = { in: 'body' } as const;
const num = (name: FaultName, rule: string, ok: (v: number) => boolean): ParamSpec => ({
  name,
  ...body,
  rule,
  ok: (v) => typeof v === 'number' && ok(v),
});
const whole = (v: number) => Number.isInteger(v) && v >= 0;
const rate = (v: number) => v >= 0 && v <= 1;
const bool = (name: FaultName): ParamSpec => ({
  name,
  ...body,
  rule: 'true or false',
  ok: (v) => typeof v === 'boolean',
});

/** A fault spec's values (the names' rules as FAULT_NAMES shows them). */
const FAULT_PARAMS: ParamSpec[] = [
  num('error_rate', 'a number from 0 to 1', rate),
  num('drop_rate', 'a number from 0 to 1', rate),
  num('short_count_rate', 'a number from 0 to 1', rate),
  num('stream_drop_rate', 'a number from 0 to 1', rate),
  num('status', '400-599', (v) => Number.isInteger(v) && v >= 400 && v <= 599),
  num('latency_ms', 'a number of milliseconds >= 0', (v) => v >= 0),
  num('rate_limit', 'a whole number', whole),
  num('count', 'a whole number', whole),
  num('hold', 'a whole number', whole),
  bool('after'),
  bool('drop_if_gone'),
  {
    name: 'method',
    ...body,
    rule: 'an HTTP method such as GET',
    ok: (v) => typeof v === 'string' && /^[A-Za-z]{1,10}$/.test(v),
  },
  {
    name: 'match',
    ...body,
    rule: 'a regular expression (a string)',
    ok: (v) => typeof v === 'string',
    refuse: (v) => (typeof v === 'string' ? regexpProblem(v) : undefined),
  },
];

function regexpProblem(s: string): string | undefined {
  try {
    new RegExp(s);
    return undefined;
  } catch (e) {
    return `is not a valid regular expression: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** A name not in FAULT_NAMES would be stored and ignored: refused. */
const knownFaults: CrossRule = {
  name: 'fault',
  in: 'body',
  refuse: ({ body: b }) => {
    const unknown = isRecord(b) ? Object.keys(b).find((k) => !(k in FAULT_NAMES)) : undefined;
    return unknown === undefined
      ? undefined
      : `"${unknown.slice(0, 40)}" is unknown; known: ${Object.keys(FAULT_NAMES).join(', ')}`;
  },
};

/** Durations the clock takes: a number and a unit (ms, s, m, h, d); JSON numbers are milliseconds. */
const ADVANCE: ParamSpec = {
  name: 'advance',
  ...body,
  flag: '--advance',
  required: true,
  rule: 'a duration such as 90s, 30m, 29h or 1d',
  ok: (v) =>
    typeof v === 'number'
      ? parseDuration(v) !== undefined
      : typeof v === 'string' && /[a-z]$/.test(v) && parseDuration(v) !== undefined,
};

/** A whole number in a query string, within `range`. */
const count = (name: string, range: { min: number; max: number }, flag?: string): ParamSpec =>
  param.int(name, range, { in: 'query', ...(flag ? { flag } : {}) });

export const SANDBOX_ADMIN_ENDPOINTS = {
  state: endpoint('GET', '/_sandbox/state', { ...admin, doc: 'counts of every entity, the clock and the faults' }),
  clock: endpoint('POST', '/_sandbox/clock', {
    ...adminKey,
    style: 'v2',
    doc: 'advance the manual clock {"advance":"29h"}; due jobs run in order',
    params: [ADVANCE],
    answer: '{now,ran}',
  }),
  faults: endpoint('GET', '/_sandbox/faults', { ...adminKey, doc: 'the fault spec and what was injected' }),
  setFaults: endpoint('POST', '/_sandbox/faults', {
    ...adminKey,
    style: 'v2',
    doc: 'set faults {"error_rate","status","latency_ms","drop_rate","rate_limit",...}',
    params: FAULT_PARAMS,
    rules: [knownFaults],
    answer: '{faults}',
  }),
  clearFaults: endpoint('DELETE', '/_sandbox/faults', { ...adminKey, doc: 'no faults' }),
  events: endpoint('POST', '/_sandbox/events', {
    ...adminKey,
    style: 'v2',
    doc: 'deliver {"event_type","user_id","payload"} to every matching webhook and stream',
    params: [
      { ...EVENT_TYPE_PARAM, flag: '<event-type>', shown: (v) => JSON.stringify(String(v).slice(0, 80)) },
      param.id('user_id', { ...body, flag: '--user-id' }),
      { name: 'payload', ...body, flag: '--data', rule: 'a JSON object', ok: isRecord },
    ],
    answer: '{"data":{event_uuid,event_type,user_id?,payload,created_at,deliveries,unreached?}}',
  }),
  deliveries: endpoint('GET', '/_sandbox/deliveries', {
    ...adminKey,
    doc: 'recent webhook deliveries and CRC checks with their outcome (limit)',
    params: [count('limit', { min: 1, max: 1000 })],
    answer: '{"data":[delivery]}',
  }),
  logs: endpoint('GET', '/_sandbox/logs', {
    ...adminKey,
    doc: 'requests answered and deliveries made after ?after=SEQ (limit, wait_ms: hold up to 25 s for new ones)',
    params: [
      count('after', { min: 0, max: Number.MAX_SAFE_INTEGER }),
      count('limit', { min: 1, max: 5000 }, '--limit'),
      count('wait_ms', { min: 0, max: 25_000 }),
    ],
    answer: '{"data":[entry],"next"}',
  }),
  stateExport: endpoint('GET', '/_sandbox/state/export', {
    ...adminKey,
    doc: 'the whole state (credentials included), as `sandbox start --state FILE` loads it',
  }),
  replayJobs: endpoint('GET', '/_sandbox/replay-jobs', { ...adminKey, doc: 'webhook replay jobs and their progress' }),
  audienceMembers: endpoint('GET', '/_sandbox/audience-members/:kind/:id', {
    ...adminKey,
    doc: 'the members of a custom audience or do-not-reach list (kind custom_audiences|do_not_reach_lists), which the service never shows',
    params: [
      param.oneOf('kind', ['custom_audiences', 'do_not_reach_lists'], { in: 'path', required: true }),
      {
        name: 'id',
        in: 'path',
        required: true,
        rule: 'letters and digits',
        ok: (v) => typeof v === 'string' && ADS_ID.test(v),
      },
    ],
    answer: '{"data":{size,requests,updated,deleted,members,other}}',
  }),
  files: endpoint('GET', '/_sandbox/files/:name', {
    ...admin,
    doc: "a finished stats job's file (gzipped), 404 once expired: the service's file host",
    params: [
      {
        name: 'name',
        in: 'path',
        required: true,
        rule: 'a file name',
        ok: (v) => typeof v === 'string' && /^[\w.-]{1,200}$/.test(v),
      },
    ],
    answer: 'the file (application/gzip)',
  }),
} as const;
