// Every endpoint the contract describes is served by the sandbox exactly as described (method,
// path, auth, rate category, error style): the two sides cannot drift apart silently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import type { Endpoint } from '../../src/contract/endpoint.js';
import { ACTIVITY_ENDPOINTS } from '../../src/contract/activity.js';
import { UPLOAD_ENDPOINTS } from '../../src/contract/audience-users.js';
import { OAUTH_ENDPOINTS } from '../../src/contract/oauth.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../src/contract/sandbox-admin.js';
import { STREAM_ENDPOINTS } from '../../src/contract/stream.js';
import { WEBHOOK_ENDPOINTS } from '../../src/contract/webhooks.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

const groups: Record<string, Record<string, Endpoint>> = {
  activity: ACTIVITY_ENDPOINTS,
  uploads: UPLOAD_ENDPOINTS,
  oauth: OAUTH_ENDPOINTS,
  admin: SANDBOX_ADMIN_ENDPOINTS,
  stream: STREAM_ENDPOINTS,
  webhooks: WEBHOOK_ENDPOINTS,
};

describe('the sandbox serves the contract', () => {
  for (const [group, endpoints] of Object.entries(groups)) {
    it(group, () => {
      for (const [name, e] of Object.entries(endpoints)) {
        const served = sb.app.router.routes.filter((r) => r.method === e.method && r.pattern === e.path);
        expect(served.length, `${group}.${name}: ${e.method} ${e.path}`).toBe(1);
        expect({ auth: served[0]!.auth, rate: served[0]!.rate, style: served[0]!.style }, `${group}.${name}`).toEqual({
          auth: e.auth,
          rate: e.rate,
          style: e.style,
        });
      }
    });
  }
});
