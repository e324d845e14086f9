// Account Activity API, the second of the three webhook products (docs/contract.md, credentials 1, 6).
// The spec names it only; the endpoints and bodies are XDK's `accountActivity.*` (OpenAPI 2.167):
// a user subscribes a webhook to their own account with user context, the app lists, counts and
// removes subscriptions with its bearer, and every event about a subscribed user is POSTed to the
// webhook as `{"for_user_id": ..., "<kind>_events": [...]}`, signed like every other delivery and
// logged so POST /2/webhooks/replay can send it again.
import type { SandboxApp, SandboxEvent } from '../app.js';
import { checkV2Input, ok, problem, type Reply, type SReq } from '../http.js';
import { collectionKey, digitsFor, type Entity } from '../state.js';
import {
  ACCOUNT_ACTIVITY_ENDPOINTS as E,
  ACCOUNT_ACTIVITY_KEYS,
  PROVISIONED_SUBSCRIPTIONS,
} from '../../contract/account-activity.js';
import { deliver, onWebhookDeleted, ownedWebhook, validWebhook, webhooks } from './webhooks.js';

interface AccountSubscription extends Entity {
  webhook_id: string;
  user_id: string;
  app_key: string;
  /** Subscribed with a token allowed to read direct messages: DM events are delivered. */
  direct_messages: boolean;
  created_at: string;
}

function isDirectMessageKey(key: string): boolean {
  return key.startsWith('direct_message');
}

const SUBSCRIPTIONS = collectionKey<AccountSubscription>('account_activity_subscriptions');

function subs(app: SandboxApp): Map<string, AccountSubscription> {
  return app.state.collection(SUBSCRIPTIONS);
}

function mine(app: SandboxApp, appKey: string | undefined): AccountSubscription[] {
  return [...subs(app).values()].filter((s) => s.app_key === appKey);
}

function canReadDirectMessages(app: SandboxApp, req: SReq): boolean {
  // OAuth 2.0: the dm.read scope (the route already required it); OAuth 1.0a: the DM permission level.
  if (req.auth.kind === 'oauth2-user') return !!req.auth.scopes?.includes('dm.read');
  const t = req.auth.token ? app.state.userTokens.get(req.auth.token) : undefined;
  return t?.accessLevel === 'read-write-directmessages';
}

/** POST .../subscriptions/all: the signing user's events go to a valid webhook (a provisioned slot each). */
function subscribe(app: SandboxApp, req: SReq): Reply {
  const w = validWebhook(app, req, req.params.webhook_id);
  const key = `${w.id}:${req.auth.userId}`;
  const existing = subs(app).get(key);
  const dm = canReadDirectMessages(app, req);
  if (existing) {
    existing.direct_messages = dm;
    return ok({ data: { subscribed: true } });
  }
  if (mine(app, req.auth.appKey).length >= PROVISIONED_SUBSCRIPTIONS) {
    throw problem(
      403,
      'Forbidden',
      `this app has used all ${PROVISIONED_SUBSCRIPTIONS} of its provisioned account activity subscriptions`,
    );
  }
  subs(app).set(key, {
    id: key,
    webhook_id: w.id,
    user_id: req.auth.userId!,
    app_key: req.auth.appKey!,
    direct_messages: dm,
    created_at: app.clock.iso(),
  });
  return ok({ data: { subscribed: true } });
}

/** DELETE .../subscriptions/:user_id/all: the app stops a user's deliveries. */
function unsubscribe(app: SandboxApp, req: SReq): Reply {
  const w = ownedWebhook(app, req, req.params.webhook_id);
  checkV2Input(E.unsubscribe, { path: req.params });
  const userId = req.params.user_id!;
  const key = `${w.id}:${userId}`;
  if (!subs(app).has(key)) {
    throw problem(404, 'Not Found Error', `user ${userId} is not subscribed to webhook ${w.id}`, {
      resource_type: 'subscription',
      resource_id: userId,
      parameter: 'user_id',
      value: userId,
    });
  }
  subs(app).delete(key);
  return ok({ data: { subscribed: false } });
}

export function install(app: SandboxApp): void {
  const r = app.router;

  // Is the authenticating user subscribed to this webhook?
  r.serve(E.check, (req) => {
    const w = ownedWebhook(app, req, req.params.webhook_id);
    return ok({ data: { subscribed: subs(app).has(`${w.id}:${req.auth.userId}`) } });
  });

  r.serve(E.subscribe, (req) => subscribe(app, req));

  r.serve(E.unsubscribe, (req) => unsubscribe(app, req));

  r.serve(E.count, (req) => {
    const all = mine(app, req.auth.appKey);
    const appRec = app.state.apps.get(req.auth.appKey!)!;
    return ok({
      data: {
        account_name: appRec.name,
        provisioned_count: String(PROVISIONED_SUBSCRIPTIONS),
        subscriptions_count_all: String(all.length),
        subscriptions_count_direct_messages: String(all.filter((s) => s.direct_messages).length),
      },
    });
  });

  r.serve(E.list, (req) => {
    const w = ownedWebhook(app, req, req.params.webhook_id);
    const list = mine(app, req.auth.appKey).filter((s) => s.webhook_id === w.id);
    return ok({
      data: {
        application_id: digitsFor(w.app_key),
        webhook_id: w.id,
        webhook_url: w.url,
        subscriptions: list.map((s) => ({ user_id: s.user_id })),
      },
    });
  });

  // The platform ends a deleted webhook's subscriptions with it.
  onWebhookDeleted(app, (webhookId) => {
    for (const [k, s] of subs(app)) if (s.webhook_id === webhookId) subs(app).delete(k);
  });

  app.events.subscribe(async (ev: SandboxEvent) => {
    const key = ACCOUNT_ACTIVITY_KEYS[ev.event_type];
    if (!key || !ev.user_id) return 0;
    let n = 0;
    for (const s of [...subs(app).values()]) {
      if (s.user_id !== ev.user_id || !webhooks(app).has(s.webhook_id)) continue;
      if (isDirectMessageKey(key) && !s.direct_messages) continue;
      const body = { for_user_id: s.user_id, [key]: [{ ...ev.payload }] };
      if (await deliver(app, s.webhook_id, body, ev)) n++;
    }
    return n;
  });
}
