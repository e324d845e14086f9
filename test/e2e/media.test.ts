// `xctl media upload` through the real CLI against the sandbox: images finish at FINALIZE,
// videos are polled until processed, a connection dropped during an APPEND is resumed by
// re-sending that segment, bad files fail processing, the sandbox enforces the limits, and the
// key goes to the media library and into a card. Flags, output and the refusals before sending
// are tested in-process (test/unit/verbs/media.test.ts).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox, type V2Reply } from '../helpers/ads.js';
import { BIN, tempDir } from '../helpers/cli.js';
import { png } from '../../scripts/demo/lib/png.js';

/** What `xctl media upload` prints. */
interface Uploaded {
  media_id: string;
  media_key: string;
}

let t: AdsSandbox;
let dir: string;
beforeAll(async () => {
  t = await startAdsSandbox();
  dir = tempDir('xctl-media-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const write = (name: string, data: Buffer) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, data);
  return p;
};
const mp4 = (n: number) => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(n, 3)]);

describe('media upload', () => {
  it('an image: INIT, APPEND, FINALIZE; its key is added to the library and goes into a card', async () => {
    const file = write('banner.png', png(1200, 628, 3000));
    const up = await t.json<Uploaded>(['media', 'upload', file, '--add-to-library', '--name', 'Banner']);
    expect(up).toMatchObject({
      media_key: expect.stringMatching(/^3_\d{19}$/),
      media_category: 'tweet_image',
      media_type: 'image/png',
      size: fs.statSync(file).size,
      state: 'succeeded',
      library: 'TRANSCODE_COMPLETED',
    });
    expect(up.media_key.slice(2)).toBe(up.media_id);
    const lib = await t.json(['ads', 'media-library', 'get', up.media_key]);
    expect(lib).toMatchObject({
      media_type: 'IMAGE',
      media_category: 'TWEET_IMAGE',
      name: 'Banner',
      file_name: 'banner.png',
    });
    const card = await t.json(
      ['ads', 'cards', 'create', '--file', '-'],
      JSON.stringify({
        name: 'Uploaded',
        components: [
          { type: 'MEDIA', media_key: up.media_key },
          { type: 'DETAILS', title: 'Hi', destination: { type: 'WEBSITE', url: 'https://example.com' } },
        ],
      }),
    );
    expect(card.card_type).toBe('IMAGE_WEBSITE');
    expect(t.requests.filter((l) => l.startsWith('POST /2/media/upload/initialize')).length).toBe(1);
  });

  it('a video for ads is amplify_video, polled with STATUS until processed', async () => {
    const file = write('launch.mp4', mp4(3000));
    const up = await t.json<Uploaded>(['media', 'upload', file, '--add-to-library']);
    expect(up).toMatchObject({
      media_key: expect.stringMatching(/^13_/),
      media_category: 'amplify_video',
      state: 'succeeded',
    });
    expect(t.requests.some((l) => l.startsWith('GET /2/media/upload 200'))).toBe(true);
    expect(await t.json(['ads', 'media-library', 'get', up.media_key])).toMatchObject({
      media_type: 'VIDEO',
      media_category: 'AMPLIFY_VIDEO',
      media_status: 'TRANSCODE_COMPLETED',
    });
  });

  it('a connection dropped during an APPEND: the segment is sent again and the upload completes', async () => {
    const file = write('big.png', png(800, 418, 4.5 * 1024 * 1024)); // two segments of at most 4 MiB
    // The first APPEND is applied, then its answer is lost; the second is dropped before it runs.
    await t.admin('POST', '/_sandbox/faults', {
      drop_rate: 1,
      count: 1,
      match: '/append$',
      method: 'POST',
      after: true,
    });
    const before = t.requests.length;
    const first = t.run(['media', 'upload', file, '--json']);
    const r = await first;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/retrying/);
    // A dropped connection leaves no line in the sandbox log: the two answered APPENDs are there.
    const appends = t.requests.slice(before).filter((l) => /^POST \/2\/media\/upload\/\d+\/append 200/.test(l));
    expect(appends.length).toBe(2);
    expect(r.stderr).toMatch(/closed unexpectedly; retrying .*attempt 2 of/);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'succeeded', size: fs.statSync(file).size });
    await t.admin('POST', '/_sandbox/faults', { drop_rate: 1, count: 1, match: '/append$', method: 'POST' });
    const again = await t.run(['media', 'upload', file, '--json']);
    expect(again.code, again.stderr).toBe(0);
    await t.admin('DELETE', '/_sandbox/faults');
  });

  // util-linux `script` gives the CLI a pseudo-terminal, as a user's shell would.
  it.skipIf(spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0)(
    'a progress bar on a terminal, nothing of it when piped',
    async () => {
      const file = write('bar.png', png(800, 418, 4.5 * 1024 * 1024));
      const cmd = [process.execPath, BIN, 'media', 'upload', file].map((a) => `'${a}'`).join(' ');
      const out = await new Promise<string>((resolve) => {
        const child = spawn('script', ['-qfec', `stty cols 120 2>/dev/null; ${cmd}`, '/dev/null'], {
          env: { ...process.env, ...t.env, NO_COLOR: '1', CI: '', XCTL_NO_PROMPT: '' },
        });
        let text = '';
        child.stdout.on('data', (d) => (text += d));
        child.on('close', () => resolve(text));
      });
      expect(out).toMatch(/▕█{24}▏ 100% 4\.5 MB\/4\.5 MB/);
      expect(out).toMatch(/\r▕█*░*▏/); // redrawn in place
      expect(out).toMatch(/media_key\s*│?\s*3_\d{19}/);
      const piped = await t.run(['media', 'upload', file]);
      expect(piped.stderr).toBe('');
    },
  );

  // issue 46: refused before the upload (exit 2, nothing sent), not after it by the service
  it('bytes that are not what the file claims are refused before sending (exit 2)', async () => {
    const r = await t.fails(2, ['media', 'upload', write('fake.mp4', Buffer.alloc(500, 1))]);
    expect(r.stderr).toMatch(
      /fake\.mp4 is named as video\/mp4 but its first bytes are not video\/mp4's: nothing was sent/,
    );
  });

  it('the sandbox enforces the same: sizes, segment indexes, missing segments, expiry of unknown ids', async () => {
    const init = await t.signed<V2Reply>('POST', '/2/media/upload/initialize', {
      media_type: 'image/png',
      total_bytes: 5 * 1024 * 1024 + 1,
      media_category: 'tweet_image',
    });
    expect(init.status).toBe(400);
    expect(init.body).toMatchObject({ type: 'https://api.x.com/2/problems/invalid-request', parameter: 'total_bytes' });
    const ok = await t.signed<V2Reply<{ id: string }>>('POST', '/2/media/upload/initialize', {
      media_type: 'image/png',
      total_bytes: 10,
      media_category: 'tweet_image',
    });
    expect(ok.body.data).toMatchObject({
      id: expect.stringMatching(/^\d{19}$/),
      media_key: `3_${ok.body.data.id}`,
      expires_after_secs: 1295999,
    });
    const fin = await t.signed<V2Reply>('POST', `/2/media/upload/${ok.body.data.id}/finalize`);
    expect(fin.status).toBe(400);
    expect(fin.body.detail).toMatch(/segments 0 are missing/);
    const app = await t.signed<V2Reply>('POST', `/2/media/upload/${ok.body.data.id}/append`, {
      segment_index: 1000,
      media: 'AAAA',
    });
    expect(app.body).toMatchObject({ parameter: 'segment_index' });
    const unknown = await t.signed<V2Reply>('GET', '/2/media/upload?command=STATUS&media_id=123');
    expect(unknown.body).toMatchObject({ parameter: 'media_id' });
  });
});
