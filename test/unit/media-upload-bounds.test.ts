// `media upload` against a hostile server and a file that changes (issue 25 item 6): every wait
// and loop is bounded, and a file that changes during the upload is an error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAfterMs, runUpload } from '../../src/commands/media/upload.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { testContext } from '../helpers/test-context.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-media-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(84, 7)]);

function png(name: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, PNG);
  return f;
}

const media = (extra: Record<string, unknown> = {}) => ({ data: { id: '77', media_key: '3_77', ...extra } });
/** Fails the test instead of looping for ever on code that does not stop. */
const guard = (what: string) => () => {
  throw new Error(`${what}: too many requests (an endless loop)`);
};

describe('media upload bounds', () => {
  it('a STATUS whose check_after_secs is not a number waits a second per poll and stops at --wait-seconds', async () => {
    const reg = new HttpRegistry();
    reg.register(route('POST', '/2/media/upload/initialize'), json(media()));
    reg.register(route('POST', '/2/media/upload/77/append'), json({}));
    reg.register(
      route('POST', '/2/media/upload/77/finalize'),
      json(media({ processing_info: { state: 'pending', check_after_secs: 'soon' } })),
    );
    reg.register(
      route('GET', '/2/media/upload'),
      json(media({ processing_info: { state: 'in_progress', check_after_secs: 'soon' } })),
      { times: 20 },
    );
    reg.register(route('GET', '/2/media/upload'), guard('STATUS'), { times: Infinity });
    const t = testContext({ transport: reg });
    const e = await runUpload(t.ctx, { file: png('a.png'), addToLibrary: false, waitSeconds: 5 }).catch(
      (x: Error) => x,
    );
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toBe('media 77 is still in_progress after 5 s');
    expect(reg.requests.filter((r) => r.path === '/2/media/upload')).toHaveLength(5);
    t.cleanup();
  });

  it('check_after_secs is a whole second to ten minutes', () => {
    expect([
      checkAfterMs('soon'),
      checkAfterMs(Number.NaN),
      checkAfterMs(0),
      checkAfterMs(-5),
      checkAfterMs(3),
      checkAfterMs(1e12),
    ]).toEqual([1000, 1000, 1000, 1000, 3000, 600_000]);
  });

  it('a file that shrinks after INIT is an error, not endless empty APPENDs', async () => {
    const f = png('shrinks.png');
    const reg = new HttpRegistry();
    reg.register(route('POST', '/2/media/upload/initialize'), (req) => {
      fs.truncateSync(f, 10);
      return json(media())(req);
    });
    reg.register(route('POST', '/2/media/upload/77/append'), guard('APPEND'), { times: Infinity });
    const t = testContext({ transport: reg });
    await expect(runUpload(t.ctx, { file: f, addToLibrary: false, waitSeconds: 5 })).rejects.toThrow(
      `${f} changed while it was uploaded: media 77 was not finalized`,
    );
    expect(reg.requests.filter((r) => r.path.endsWith('/append'))).toHaveLength(0);
    t.cleanup();
  });

  it('a file rewritten (same size) while its segments are sent is not finalized', async () => {
    const f = png('rewritten.png');
    const reg = new HttpRegistry();
    reg.register(route('POST', '/2/media/upload/initialize'), json(media()));
    reg.register(route('POST', '/2/media/upload/77/append'), (req) => {
      const later = new Date(Date.now() + 5000);
      fs.writeFileSync(f, Buffer.concat([PNG.subarray(0, 16), Buffer.alloc(84, 9)]));
      fs.utimesSync(f, later, later);
      return json({})(req);
    });
    const t = testContext({ transport: reg });
    await expect(runUpload(t.ctx, { file: f, addToLibrary: false, waitSeconds: 5 })).rejects.toThrow(
      /changed while it was uploaded/,
    );
    expect(reg.requests.some((r) => r.path.endsWith('/finalize'))).toBe(false);
    reg.verify();
    t.cleanup();
  });
});
