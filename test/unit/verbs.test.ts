// Verbs in-process, through their run functions or the real command tree, with every request they
// send: named positionals, the fake clock, and the declared hooks of generated verbs.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { testContext, type TestContext } from '../helpers/test-context.js';

const made: TestContext[] = [];
const ctxWith = (reg: HttpRegistry, o: Parameters<typeof testContext>[0] = {}) => {
  const t = testContext({ transport: reg, ...o });
  made.push(t);
  return t;
};
afterEach(() => {
  for (const t of made.splice(0)) t.cleanup();
});

describe('audiences update: the generated verb with its beforeSend hook', () => {
  const aud = (type: string) => json({ data: { id: 'ca1', name: 'News', audience_type: type } });

  it('checks the flags, reads the audience, then sends the generated PUT', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/12/accounts/acct1/custom_audiences/ca1'), aud('WEB'));
    reg.register(
      route('PUT', '/12/accounts/acct1/custom_audiences/ca1'),
      json({ data: { id: 'ca1', name: 'Renamed' } }),
    );
    const t = ctxWith(reg);
    await t.run(['audiences', 'update', 'ca1', '--name', 'Renamed', '-o', 'jsonl']);
    expect(reg.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /12/accounts/acct1/custom_audiences/ca1',
      'PUT /12/accounts/acct1/custom_audiences/ca1',
    ]);
    expect(reg.requests[1]!.form().get('name')).toBe('Renamed');
    expect(t.stdout()).toBe('{"id":"ca1","name":"Renamed"}\n');
    reg.verify();
  });

  it('a flexible audience is refused after the read: no PUT', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/12/accounts/acct1/custom_audiences/ca1'), aud('FLEXIBLE'));
    const t = ctxWith(reg);
    await expect(t.run(['audiences', 'update', 'ca1', '--name', 'x'])).rejects.toThrow(
      /audiences update: custom audience ca1 \("News"\) is a flexible audience/,
    );
    expect(reg.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('a flag that breaks a rule is refused before the read', async () => {
    const reg = new HttpRegistry();
    const t = ctxWith(reg);
    await expect(t.run(['audiences', 'update', 'ca1', '--name', ''])).rejects.toThrow('--name must not be empty');
    expect(reg.requests).toEqual([]);
  });
});
