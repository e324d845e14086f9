// The sandbox's own admin endpoints (DESIGN.md "Sandbox"): loopback clients only; all but the
// entity counts also take the sandbox app's key and secret as HTTP Basic: on a shared machine
// another user can reach loopback too, and must neither change the state (events, the clock,
// faults) nor read it (the dump holds every token; logs, deliveries, audience members). Not part of the platform; `xctl sandbox ...`,
// the tests and the demo drive the emulator here.
import { endpoint } from './endpoint.js';

const admin = { auth: 'admin' } as const;
const adminKey = { auth: 'admin-key' } as const;

export const SANDBOX_ADMIN_ENDPOINTS = {
  state: endpoint('GET', '/_sandbox/state', { ...admin, doc: 'counts of every entity, the clock and the faults' }),
  clock: endpoint('POST', '/_sandbox/clock', {
    ...adminKey,
    style: 'v2',
    doc: 'advance the manual clock {"advance":"29h"}; due jobs run in order',
  }),
  faults: endpoint('GET', '/_sandbox/faults', { ...adminKey, doc: 'the fault spec and what was injected' }),
  setFaults: endpoint('POST', '/_sandbox/faults', {
    ...adminKey,
    style: 'v2',
    doc: 'set faults {"error_rate","status","latency_ms","drop_rate","rate_limit",...}',
  }),
  clearFaults: endpoint('DELETE', '/_sandbox/faults', { ...adminKey, doc: 'no faults' }),
  events: endpoint('POST', '/_sandbox/events', {
    ...adminKey,
    style: 'v2',
    doc: 'deliver {"event_type","user_id","payload"} to every matching webhook and stream',
  }),
  deliveries: endpoint('GET', '/_sandbox/deliveries', {
    ...adminKey,
    doc: 'recent webhook deliveries and CRC checks with their outcome (limit)',
  }),
  logs: endpoint('GET', '/_sandbox/logs', {
    ...adminKey,
    doc: 'requests answered and deliveries made after ?after=SEQ (limit, wait_ms: hold up to 25 s for new ones)',
  }),
  stateExport: endpoint('GET', '/_sandbox/state/export', {
    ...adminKey,
    doc: 'the whole state (credentials included), as `sandbox start --state FILE` loads it',
  }),
  replayJobs: endpoint('GET', '/_sandbox/replay-jobs', { ...adminKey, doc: 'webhook replay jobs and their progress' }),
  audienceMembers: endpoint('GET', '/_sandbox/audience-members/:kind/:id', {
    ...adminKey,
    doc: 'the members of a custom audience or do-not-reach list (kind custom_audiences|do_not_reach_lists), which the service never shows',
  }),
  files: endpoint('GET', '/_sandbox/files/:name', {
    ...admin,
    doc: "a finished stats job's file (gzipped), 404 once expired: the service's file host",
  }),
} as const;
