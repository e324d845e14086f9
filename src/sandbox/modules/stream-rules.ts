// Filtered stream webhooks (docs/contract.md, credentials section 6): rules on the existing
// /2/tweets/search/stream/rules endpoints, webhooks linked with POST /2/tweets/search/webhooks/:id,
// and `post.create` events matched against the rules and delivered (with edit history) to every
// linked webhook, signed like every delivery.
import type { SandboxApp, SandboxEvent } from '../app.js';
import { checkV2Input, notFound, ok, pageStart, pageToken, problem, queryOf, type Reply, type SReq } from '../http.js';
import { collectionKey, digitsFor, randomDigits, type Entity } from '../state.js';
import { deliver, onWebhookDeleted, ownedWebhook, validWebhook, webhooks } from './webhooks.js';
import { matchRule, ruleProblem } from '../../webhooks/rule-match.js';
import {
  LINK_FIELD_PARAMS,
  RULES_PAGE,
  RULES_PER_APP,
  STREAM_ENDPOINTS as E,
  STREAM_RULE,
  deletesAll,
} from '../../contract/stream.js';
import { messageOf, validate } from '../../contract/params.js';
import { isNumericId } from '../../contract/ids.js';
import { isRecord } from '../../contract/guards.js';

interface RuleRec extends Entity {
  value: string;
  tag?: string;
  app_key: string;
}

interface PostRec extends Entity {
  text: string;
  author_id: string;
  created_at: string;
  edit_history_tweet_ids: string[];
}

const RULES = collectionKey<RuleRec>('stream_rules');

const POSTS = collectionKey<PostRec>('posts');

function rules(app: SandboxApp): Map<string, RuleRec> {
  return app.state.collection(RULES);
}

/** One link of a webhook with one field set (a webhook can be linked more than once). */
interface LinkRec extends Entity {
  webhook_id: string;
  app_key: string;
  created_at: string;
  /** One `name=value` string per query parameter given at link time (docs/contract.md, notes-2 7). */
  fields: string[];
}

const LINKS = collectionKey<LinkRec>('stream_webhook_links');

function links(app: SandboxApp): Map<string, LinkRec> {
  return app.state.collection(LINKS);
}

function linkView(app: SandboxApp, l: LinkRec): Record<string, unknown> {
  return {
    application_id: digitsFor(l.app_key),
    business_user_id: app.state.apps.get(l.app_key)?.ownerUserId ?? '',
    created_at: l.created_at,
    fields: l.fields,
    instance_id: l.id,
    webhook_id: l.webhook_id,
  };
}

function posts(app: SandboxApp): Map<string, PostRec> {
  return app.state.collection(POSTS);
}

const view = (r: RuleRec) => ({ id: r.id, value: r.value, ...(r.tag !== undefined ? { tag: r.tag } : {}) });

/** GET /2/tweets/search/stream/rules: the app's rules (ids= picks some), max_results a page. */
function listRules(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.listRules, { query: queryOf(req) });
  const ids = req.query.get('ids')?.split(',').filter(Boolean);
  const mine = [...rules(app).values()].filter((x) => x.app_key === req.auth.appKey && (!ids || ids.includes(x.id)));
  const max = Number(req.query.get('max_results') ?? RULES_PAGE.default);
  const start = pageStart(req.query.get('pagination_token'), mine.length);
  const page = mine.slice(start, start + max);
  const next = start + max < mine.length ? pageToken(start + max) : undefined;
  return ok({
    ...(page.length ? { data: page.map(view) } : {}),
    meta: { sent: app.clock.iso(), result_count: page.length, ...(next ? { next_token: next } : {}) },
  });
}

/** POST /2/tweets/search/stream/rules: add (all or nothing) or delete; dry_run checks only. */
function changeRules(app: SandboxApp, req: SReq): Reply {
  const body = req.json();
  checkV2Input(E.changeRules, { query: queryOf(req), body });
  const dry = /^(true|1)$/i.test(req.query.get('dry_run') ?? '');
  const change = body as { add?: unknown[]; delete?: { ids?: unknown[]; values?: unknown[] } };
  const mine = [...rules(app).values()].filter((x) => x.app_key === req.auth.appKey);
  const sent = app.clock.iso();
  if (change.add !== undefined) return addRules(app, req.auth.appKey!, mine, change.add, { dry, sent });
  // delete_all=true: every rule of the app goes (with the ids or values named, if any).
  if (deletesAll(queryOf(req))) return deleteRules(app, mine, { ids: mine.map((x) => x.id) }, { dry, sent });
  return deleteRules(app, mine, change.delete!, { dry, sent });
}

/** The add half: every rule checked (the contract, then the sandbox's grammar); one refused, none added. */
function addRules(
  app: SandboxApp,
  appKey: string,
  mine: RuleRec[],
  add: unknown[],
  o: { dry: boolean; sent: string },
): Reply {
  const created: ReturnType<typeof view>[] = [];
  const errors: Array<Record<string, unknown>> = [];
  const seen = new Set(mine.map((x) => x.value));
  for (const item of add) {
    const invalid = validate(STREAM_RULE, { body: item });
    const value = isRecord(item) ? item.value : undefined;
    const tag = isRecord(item) ? item.tag : undefined;
    const why = invalid ? messageOf(invalid, 'service') : ruleProblem(String(value));
    // The contract's rule checked the value is a string; `typeof` tells the compiler so.
    if (why || typeof value !== 'string') {
      errors.push({ value, title: 'InvalidRule', detail: why, type: 'https://api.x.com/2/problems/invalid-rules' });
      continue;
    }
    if (seen.has(value)) {
      const dup = mine.find((x) => x.value === value);
      errors.push({
        value,
        ...(dup ? { id: dup.id } : {}),
        title: 'DuplicateRule',
        type: 'https://api.x.com/2/problems/duplicate-rules',
      });
      continue;
    }
    seen.add(value);
    created.push({ id: randomDigits(19), value, ...(typeof tag === 'string' ? { tag } : {}) });
  }
  if (mine.length + created.length > RULES_PER_APP)
    throw problem(400, 'Invalid Request', `at most ${RULES_PER_APP} rules per app`, { parameter: 'add' });
  // All or nothing, as the platform does: one invalid rule means none is added.
  const commit = !o.dry && errors.length === 0;
  if (commit) for (const c of created) rules(app).set(c.id, { ...c, app_key: appKey });
  const summary = {
    created: commit ? created.length : 0,
    not_created: commit ? 0 : created.length + errors.length,
    valid: created.length,
    invalid: errors.length,
  };
  return ok(
    {
      ...(created.length ? { data: created } : {}),
      meta: { sent: o.sent, summary },
      ...(errors.length ? { errors } : {}),
    },
    errors.length ? 400 : 201,
  );
}

/** The delete half, by ids or by values; a rule not found is an item of `errors`. */
function deleteRules(
  app: SandboxApp,
  mine: RuleRec[],
  del: { ids?: unknown[]; values?: unknown[] },
  o: { dry: boolean; sent: string },
): Reply {
  const byIds = Array.isArray(del.ids);
  const wanted = (byIds ? del.ids : del.values) ?? [];
  const errors: Array<Record<string, unknown>> = [];
  const hit: RuleRec[] = [];
  for (const w of wanted) {
    const found = mine.find((x) => (byIds ? x.id === w : x.value === w));
    if (found) hit.push(found);
    else
      errors.push({
        ...(byIds ? { id: w } : { value: w }),
        title: 'RuleNotFound',
        detail: 'no such rule',
        type: 'https://api.x.com/2/problems/resource-not-found',
      });
  }
  if (!o.dry) for (const h of hit) rules(app).delete(h.id);
  // A dry run answers what would happen (the platform's summary), without doing it.
  return ok({
    meta: { sent: o.sent, summary: { deleted: hit.length, not_deleted: errors.length } },
    ...(errors.length ? { errors } : {}),
  });
}

/** Rule counts (XDK's stream.getRuleCounts): the caps of section 8 and this app's use of them. */
function ruleCounts(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.ruleCounts, { query: queryOf(req) });
  const fields = (req.query.get('rules_count.fields') ?? '').split(',').filter(Boolean);
  const perApp = new Map<string, number>();
  for (const x of rules(app).values()) perApp.set(x.app_key, (perApp.get(x.app_key) ?? 0) + 1);
  const mine = perApp.get(req.auth.appKey!) ?? 0;
  const total = [...perApp.values()].reduce((a, b) => a + b, 0);
  const data: Record<string, unknown> = {
    cap_per_client_app: String(RULES_PER_APP),
    cap_per_project: String(RULES_PER_APP),
    client_app_rules_count: { client_app_id: digitsFor(req.auth.appKey!), rule_count: mine },
    project_rules_count: String(total),
  };
  if (fields.includes('all_project_client_apps')) {
    data.all_project_client_apps = [...perApp.entries()].map(([k, n]) => ({
      client_app_id: digitsFor(k),
      rule_count: n,
    }));
  }
  return ok({ data });
}

/** POST /2/tweets/search/webhooks/:id: link a valid webhook to the filtered stream (idempotent per field set). */
function linkWebhook(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.link, { path: req.params, query: queryOf(req) });
  const w = validWebhook(app, req, req.params.id);
  const fields: string[] = [];
  for (const name of LINK_FIELD_PARAMS) {
    const v = req.query.get(name);
    if (v !== null) fields.push(`${name}=${v}`);
  }
  const same = [...links(app).values()].find((l) => l.webhook_id === w.id && l.fields.join('&') === fields.join('&'));
  if (!same) {
    let id = randomDigits(19);
    while (links(app).has(id)) id = randomDigits(19);
    links(app).set(id, { id, webhook_id: w.id, app_key: w.app_key, created_at: app.clock.iso(), fields });
  }
  return ok({ data: { provisioned: true } });
}

/** DELETE /2/tweets/search/webhooks/:id: unlink a webhook from the filtered stream. */
function unlinkWebhook(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.unlink, { path: req.params });
  const w = ownedWebhook(app, req, req.params.id);
  const linked = [...links(app).values()].filter((l) => l.webhook_id === w.id);
  if (linked.length === 0)
    throw notFound('webhook link', w.id, 'webhook_id', `webhook ${w.id} is not linked to the filtered stream`);
  for (const l of linked) links(app).delete(l.id);
  return ok({ data: { deleted: true } });
}

/** A post.create event to the webhooks linked to the filtered stream whose rules it matches. */
async function fanOut(app: SandboxApp, ev: SandboxEvent): Promise<number> {
  if (ev.event_type !== 'post.create') return 0;
  const post = createPost(app, ev);
  let n = 0;
  for (const link of [...links(app).values()]) {
    if (!webhooks(app).has(link.webhook_id)) continue;
    const matching = [...rules(app).values()].filter(
      (x) => x.app_key === link.app_key && matchRule(x.value, post.text, post.author_id, app),
    );
    if (matching.length === 0) continue;
    const author = app.state.users.get(post.author_id);
    const expandsAuthor = link.fields.some((f) => /^expansions=(.*,)?author_id(,|$)/.test(f));
    const body = {
      data: {
        id: post.id,
        text: post.text,
        created_at: post.created_at,
        author_id: post.author_id,
        edit_history_tweet_ids: post.edit_history_tweet_ids,
      },
      ...(expandsAuthor && author
        ? { includes: { users: [{ id: author.id, name: author.name, username: author.screen_name }] } }
        : {}),
      matching_rules: matching.map((m) => ({ id: m.id, ...(m.tag !== undefined ? { tag: m.tag } : {}) })),
    };
    if (await deliver(app, link.webhook_id, body, ev)) n++;
  }
  return n;
}

export function install(app: SandboxApp): void {
  const r = app.router;
  r.serve(E.listRules, (req) => listRules(app, req));
  r.serve(E.changeRules, (req) => changeRules(app, req));
  r.serve(E.ruleCounts, (req) => ruleCounts(app, req));
  const mineLinks = (req: SReq) =>
    [...links(app).values()].filter((l) => l.app_key === req.auth.appKey && webhooks(app).has(l.webhook_id));
  // OpenAPI 2.167 shape; the quickstart's older path answers with the older {"links":[...]} shape.
  r.serve(E.listLinks, (req) => ok({ data: mineLinks(req).map((l) => linkView(app, l)) }));
  r.serve(E.listLinksLegacy, (req) => ok({ data: { links: mineLinks(req).map((l) => linkView(app, l)) } }));
  r.serve(E.link, (req) => linkWebhook(app, req));
  r.serve(E.unlink, (req) => unlinkWebhook(app, req));

  // A deleted webhook's stream links end with it.
  onWebhookDeleted(app, (webhookId) => {
    for (const [id, l] of links(app)) if (l.webhook_id === webhookId) links(app).delete(id);
  });

  app.events.subscribe((ev) => fanOut(app, ev));
}

/**
 * Stores the post of a `post.create` event. `previous_post_id` in the payload (the edit_options
 * of POST /2/posts) makes it an edit: its edit history is the original's plus its own id.
 */
function createPost(app: SandboxApp, ev: SandboxEvent): PostRec {
  const p = ev.payload;
  const text = typeof p.text === 'string' ? p.text : '';
  const prevId =
    typeof p.previous_post_id === 'string'
      ? p.previous_post_id
      : isRecord(p.edit_options) && typeof p.edit_options.previous_post_id === 'string'
        ? p.edit_options.previous_post_id
        : undefined;
  const prev = prevId ? posts(app).get(prevId) : undefined;
  const id = isNumericId(p.id) && !posts(app).has(p.id) ? p.id : randomDigits(19);
  const rec: PostRec = {
    id,
    text,
    author_id: ev.user_id ?? app.seed.user_id,
    created_at: ev.created_at,
    edit_history_tweet_ids: [...(prev?.edit_history_tweet_ids ?? []), id],
  };
  posts(app).set(id, rec);
  ev.payload.id ??= id;
  return rec;
}
