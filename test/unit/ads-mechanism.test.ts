// The table mechanism itself, with a synthetic resource: the features the next resources
// (creatives, audiences) rely on even where part 1's resources do not use them: parent path
// ids, JSON-bodied operations, hard deletes, write-only params, custom verbs; both through the
// sandbox routes and through the in-process CLI function.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { installResources } from '../../src/sandbox/modules/ads.js';
import { oauth1Header } from '../../src/core/oauth1.js';
import { Context } from '../../src/context.js';
import { p, commonList } from '../../src/ads/params.js';
import { createOp, customOp, deleteOp, getOp, listOp } from '../../src/ads/ops.js';
import type { AdsCollection, ResourceDef } from '../../src/ads/resource-types.js';
import { positionalsOf, runOperation } from '../../src/commands/ads/run.js';
import { withBehaviour, type Behaviour } from '../../src/sandbox/ads/behaviour.js';
import type { AdsReply, Row } from '../helpers/json.js';
import { sandboxEnv } from '../helpers/cli.js';

const BOX = '/accounts/:account_id/boxes/:box_id/widgets';
// Made-up resources exercise the mechanism; their collections are not among the real ones.
const WIDGETS = 'widgets' as AdsCollection;
const GADGETS = 'gadgets' as AdsCollection;
const widgets: ResourceDef = {
  name: WIDGETS,
  dataType: 'widget',
  noun: 'widgets',
  idParam: 'widget_id',
  description: 'test widgets under a box',
  columns: ['id', 'name'],
  operations: [
    listOp(BOX, [...commonList(), p.list('widget_ids')], { description: 'list' }),
    getOp(`${BOX}/:widget_id`, [p.bool('with_deleted')], { description: 'get' }),
    createOp(BOX, [p.str('name', { required: true, max: 5 }), p.str('secret', { writeOnly: true })], {
      description: 'create',
    }),
    deleteOp(`${BOX}/:widget_id`, [], { description: 'delete' }),
    customOp('shout', 'GET', 'one', `${BOX}/:widget_id/shout`, [], { description: 'custom verb' }),
  ],
};
// What the sandbox does beyond the generic store, kept apart from the table as for the real resources.
const widgetsBehaviour: Behaviour = {
  hooks: { deleteMode: 'hard' },
  ops: {
    shout: (ops) => ({ id: ops.id, loud: String(ops.find(WIDGETS, ops.id!).name).toUpperCase(), box: ops.path.box_id }),
  },
};
const gadgets: ResourceDef = {
  name: GADGETS,
  dataType: 'gadget',
  noun: 'gadgets',
  idParam: 'gadget_id',
  description: 'JSON-bodied test resource',
  columns: ['id', 'name'],
  operations: [
    {
      ...createOp(
        '/accounts/:account_id/gadgets',
        [
          p.str('name', { required: true, max: 80 }),
          p.json('parts', z.array(z.string()).min(2, { error: 'must hold at least 2 parts' }), { required: true }),
        ],
        {
          description: 'create from JSON',
        },
      ),
      body: 'json',
    },
  ],
};

let sb: Sandbox;
let base: string;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual' });
  installResources(sb.app, [withBehaviour(widgets, widgetsBehaviour), gadgets]);
  base = `/12/accounts/${sb.seed.account_id}`;
});
afterAll(() => sb.close());

async function call<D = Row>(
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: AdsReply<D> }> {
  const s = sb.seed;
  const url = s.base_url + path;
  const authorization = oauth1Header(
    { consumerKey: s.api_key, consumerSecret: s.api_secret, token: s.access_token, tokenSecret: s.access_token_secret },
    { method, url },
  );
  const res = await fetch(url, {
    method,
    headers: { authorization, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });
  return { status: res.status, body: (await res.json()) as AdsReply<D> };
}

describe('sandbox routes from the table', () => {
  it('parent path ids are stored, filter lists and scope gets', async () => {
    const a = await call('POST', `${base}/boxes/b1/widgets?name=one&secret=s3`);
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ name: 'one', box_id: 'b1', account_id: sb.seed.account_id, deleted: false });
    expect(a.body.data.secret).toBeUndefined(); // write-only
    await call('POST', `${base}/boxes/b2/widgets?name=two`);
    expect((await call<Row[]>('GET', `${base}/boxes/b1/widgets`)).body.data.map((w) => w.name)).toEqual(['one']);
    expect((await call('GET', `${base}/boxes/b2/widgets/${a.body.data.id}`)).status).toBe(404);
    expect((await call('GET', `${base}/boxes/b1/widgets/${a.body.data.id}/shout`)).body.data).toEqual({
      id: a.body.data.id,
      loud: 'ONE',
      box: 'b1',
    });
  });

  it('hard deletes leave nothing to find, even with with_deleted', async () => {
    const w = (await call('POST', `${base}/boxes/b3/widgets?name=gone`)).body.data;
    const del = await call('DELETE', `${base}/boxes/b3/widgets/${w.id}`);
    expect(del.status).toBe(200);
    expect((await call('GET', `${base}/boxes/b3/widgets/${w.id}?with_deleted=true`)).status).toBe(404);
    expect((await call('DELETE', `${base}/boxes/b3/widgets/${w.id}`)).status).toBe(404);
  });

  it('validates query and JSON bodies with the same definitions', async () => {
    const long = await call('POST', `${base}/boxes/b1/widgets?name=toolong`);
    expect(long.body.errors![0]).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'name must be at most 5 characters',
      parameter: 'name',
    });
    const g = await call('POST', `${base}/gadgets`, { name: 'g', parts: ['a', 'b'] });
    expect(g.body.data).toMatchObject({ name: 'g', parts: ['a', 'b'] });
    const bad = await call('POST', `${base}/gadgets`, { name: 'g', parts: ['a'] });
    expect(bad.body.errors![0]).toMatchObject({
      code: 'INVALID_PARAMETER',
      parameter: 'parts',
      message: 'parts must hold at least 2 parts',
    });
    expect((await call('POST', `${base}/gadgets`, [1])).body.errors![0].message).toMatch(/JSON object/);
  });
});

describe('CLI side of the mechanism', () => {
  it('path parameters become positionals in order; an own account id is optional', () => {
    expect(positionalsOf(widgets, widgets.operations[4]!).map((x) => x.name)).toEqual(['box-id', 'widget-id']);
    expect(positionalsOf(widgets, widgets.operations[0]!).map((x) => x.name)).toEqual(['box-id']);
  });

  function ctxFor(input = ''): { ctx: Context; out: () => string } {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let text = '';
    stdout.on('data', (d) => (text += d));
    const stdin = new PassThrough();
    stdin.end(input);
    const s = sb.seed;
    const ctx = new Context({
      streams: { stdin, stdout, stderr },
      env: sandboxEnv(s, '/nonexistent-xctl-test'),
      globals: { output: 'json' },
    });
    return { ctx, out: () => text };
  }

  it('runs a JSON-bodied create from --file - and lists under a parent', async () => {
    const c = ctxFor(JSON.stringify({ name: 'cli', parts: ['x', 'y', 'z'] }));
    await runOperation(c.ctx, gadgets, gadgets.operations[0]!, { params: {}, path: {}, file: '-' });
    expect(JSON.parse(c.out())).toMatchObject({ name: 'cli', parts: ['x', 'y', 'z'] });
    const l = ctxFor();
    await runOperation(l.ctx, widgets, widgets.operations[0]!, { params: { count: '5' }, path: { box_id: 'b2' } });
    expect((JSON.parse(l.out()) as Row[]).map((w) => w.name)).toEqual(['two']);
  });

  it('refuses a JSON body that breaks a rule, naming the parameter', async () => {
    const c = ctxFor(JSON.stringify({ name: 'cli', parts: 'x' }));
    await expect(
      runOperation(c.ctx, gadgets, gadgets.operations[0]!, { params: {}, path: {}, file: '-' }),
    ).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--file: parts /) });
    const m = ctxFor(JSON.stringify({ parts: ['a', 'b'] }));
    await expect(
      runOperation(m.ctx, gadgets, gadgets.operations[0]!, { params: {}, path: {}, file: '-' }),
    ).rejects.toMatchObject({ exitCode: 2, message: '--file: name is required' });
  });
});
