// `xctl media upload` tested where it lives (issue 27 item 3): flags -> options through runF, the
// requests of an upload (INIT, APPEND, FINALIZE, the media library), its exact piped and terminal
// output, and the refusals before anything is sent (they spawned the CLI against a sandbox).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { register, type UploadOptions } from '../../../src/commands/media/upload.js';
import { png } from '../../../scripts/demo/lib/png.js';
import { refusal } from '../../helpers/ads.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { useTestContexts, type TestContext } from '../../helpers/test-context.js';

const tc = useTestContexts();
function write(t: TestContext, name: string, data: Buffer): string {
  const p = path.join(t.configDir, name);
  fs.writeFileSync(p, data);
  return p;
}
const ID = '1900000000000000077';
const mp4 = (n: number) => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(n, 3)]);

describe('media upload: flags -> options (runF)', () => {
  it.each([
    [['upload', 'a.png'], { file: 'a.png', waitSeconds: 600, addToLibrary: false, dryRun: false }],
    [
      ['upload', 'a.mp4', '--category', 'amplify_video', '--add-to-library', '--name', 'Ad', '--wait-seconds', '5'],
      { file: 'a.mp4', category: 'amplify_video', addToLibrary: true, name: 'Ad', waitSeconds: 5, dryRun: false },
    ],
    [['upload', 'a.png', '--dry-run'], { file: 'a.png', waitSeconds: 600, addToLibrary: false, dryRun: true }],
  ])('%j', async (argv, want) => {
    const o = await tc().optionsOf<UploadOptions>(register, argv);
    expect(o).toEqual({ category: undefined, name: undefined, ...want });
  });

  it('a category outside the choices and a missing file are usage errors of commander', async () => {
    await expect(tc().optionsOf(register, ['upload', 'a.png', '--category', 'dm_image'])).rejects.toMatchObject({
      code: 'commander.invalidArgument',
    });
    await expect(tc().optionsOf(register, ['upload'])).rejects.toMatchObject({ code: 'commander.missingArgument' });
  });
});

/** An image upload the service finishes at FINALIZE. */
function imageUpload(): HttpRegistry {
  const data = { id: ID, media_key: `3_${ID}`, size: 0 };
  return new HttpRegistry()
    .register(route('POST', '/2/media/upload/initialize'), json({ data }))
    .register(route('POST', `/2/media/upload/${ID}/append`), json({}))
    .register(route('POST', `/2/media/upload/${ID}/finalize`), json({ data: { ...data, size: 3000 } }));
}

describe('media upload: the requests and the output', () => {
  it('an image: INIT with type, size and category, one APPEND segment, FINALIZE; one TSV line piped', async () => {
    const http = imageUpload();
    const t = tc({ transport: http });
    const file = write(t, 'banner.png', png(1200, 628, 3000));
    await t.run(['media', 'upload', file]);
    http.verify();
    const size = fs.statSync(file).size;
    expect(http.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /2/media/upload/initialize',
      `POST /2/media/upload/${ID}/append`,
      `POST /2/media/upload/${ID}/finalize`,
    ]);
    expect(http.requests[0]!.json()).toEqual({
      media_type: 'image/png',
      total_bytes: size,
      media_category: 'tweet_image',
    });
    expect(http.requests[1]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=xctl-/);
    expect(http.requests[1]!.body).toContain('name="segment_index"\r\n\r\n0\r\n');
    for (const r of http.requests) expect(r.headers.authorization).toMatch(/^OAuth /);
    expect(t.stdout()).toBe(`3_${ID}\t${ID}\ttweet_image\t3000\tsucceeded\n`);
    expect(t.stderr()).toBe('');
  });

  it('on a terminal: a table of the result', async () => {
    const t = tc({ transport: imageUpload(), tty: true });
    await t.run(['media', 'upload', write(t, 'banner.png', png(1200, 628, 3000))]);
    expect(t.stdout()).toBe(
      [
        '┌────────────────┬───────────────────────┐',
        `│ media_key      │ 3_${ID} │`,
        `│ media_id       │ ${ID}   │`,
        '│ media_category │ tweet_image           │',
        '│ media_type     │ image/png             │',
        '│ size           │ 3000                  │',
        '│ state          │ succeeded             │',
        '└────────────────┴───────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  // issue 46 item 11: a small file reads in kB, in the audience uploads' bar style
  it('on a terminal stderr: the bar as audience uploads draw it, small sizes in kB', async () => {
    const t = tc({ transport: imageUpload(), tty: { stdout: false, stderr: true } });
    await t.run(['media', 'upload', write(t, 'banner.png', png(1200, 628, 3600))]);
    const lines = t.stderr().split('\r').filter(Boolean);
    expect(lines[lines.length - 1]).toMatch(/^▕█{24}▏ 100% 3\.\d kB\/3\.\d kB *\n$/);
    expect(t.stderr()).not.toContain('0.0 of 0.0 MB');
  });

  it('a video with --add-to-library is amplify_video; STATUS is polled; the key goes to the library', async () => {
    const data = { id: ID, media_key: `13_${ID}` };
    const http = new HttpRegistry()
      .register(route('POST', '/2/media/upload/initialize'), json({ data }))
      .register(route('POST', `/2/media/upload/${ID}/append`), json({}))
      .register(
        route('POST', `/2/media/upload/${ID}/finalize`),
        json({ data: { ...data, processing_info: { state: 'pending', check_after_secs: 2 } } }),
      )
      .register(
        route('GET', '/2/media/upload', { query: { command: 'STATUS', media_id: ID } }),
        json({ data: { ...data, processing_info: { state: 'succeeded', progress_percent: 100 } } }),
      )
      .register(
        route('POST', '/12/accounts/acct1/media_library'),
        json({ data: { media_key: data.media_key, media_status: 'TRANSCODE_COMPLETED' } }),
      );
    const t = tc({ transport: http });
    await t.run([
      'media',
      'upload',
      write(t, 'launch.mp4', mp4(3000)),
      '--add-to-library',
      '--name',
      'Launch',
      '--json',
    ]);
    http.verify();
    expect(http.requests[0]!.json()).toMatchObject({ media_type: 'video/mp4', media_category: 'amplify_video' });
    expect(Object.fromEntries(http.requests[4]!.form())).toEqual({
      media_key: `13_${ID}`,
      file_name: 'launch.mp4',
      name: 'Launch',
    });
    expect(JSON.parse(t.stdout())).toMatchObject({ state: 'succeeded', library: 'TRANSCODE_COMPLETED' });
  });
});

describe('media upload: refused before sending (exit 2, nothing sent)', () => {
  const cases: Array<[string, (t: TestContext) => string[], RegExp]> = [
    [
      'an image over 5 MB',
      (t) => [write(t, 'huge.png', png(10, 10, 5 * 1024 * 1024 + 200))],
      /<file> must be at most 5 MB for tweet_image \(got 5\.0 MB\)/,
    ],
    ['text', (t) => [write(t, 'notes.txt', Buffer.from('hello'))], /cannot tell what notes.txt is/],
    // issue 46: a text file named .png was uploaded before the service refused it
    [
      'text named .png',
      (t) => [write(t, 'banner.png', Buffer.from('not a picture at all\n'))],
      /banner\.png is named as image\/png but its first bytes are not image\/png's: nothing was sent/,
    ],
    [
      'an image as tweet_video',
      (t) => [write(t, 'pic.png', png(10, 10)), '--category', 'tweet_video'],
      /category tweet_video takes a video \(got image\/png\)/,
    ],
    [
      '--name without the library',
      (t) => [write(t, 'pic2.png', png(10, 10)), '--name', 'x'],
      /--name is for the media library: add --add-to-library/,
    ],
    ['a file that is not there', (t) => [path.join(t.configDir, 'missing.png')], /cannot read/],
    [
      'an empty file',
      (t) => [write(t, 'empty.png', Buffer.alloc(0))],
      /<file> must be more than 0 \(the file is empty\)/,
    ],
  ];
  it.each(cases)('%s', async (_n, args, words) => {
    const files = tc(); // the files are made in a folder of their own
    expect(await refusal(tc, ['media', 'upload', ...args(files)])).toMatch(words);
  });
});
