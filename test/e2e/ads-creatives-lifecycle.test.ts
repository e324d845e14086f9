// The time-driven lifecycles of spec section 3 through the real CLI, on the sandbox's manual
// clock: scheduled posts going out (SUCCESS, completed_at, tweet_id) or hard-deleted (DELETED),
// polls closing at end_time and hard-deleted; and their rules refused before sending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox, type Row } from '../helpers/ads.js';

/** A card as `xctl ads cards|polls ... create` prints it. */
interface Card extends Row {
  card_uri: string;
}

let t: AdsSandbox;
let owner: string;
beforeAll(async () => {
  t = await startAdsSandbox({ clock: 'manual' });
  owner = t.sb.seed.user_id;
});
afterAll(async () => {
  await t.close();
});

const WIDE = '3_1000000000000000011';
const SQUARE = '3_1000000000000000012';
const SMALL = '3_1000000000000000015';
const VIDEO = '13_1000000000000000014';

const advance = (by: string) => t.admin('POST', '/_sandbox/clock', { advance: by });
const sandboxNow = () => t.sb.app.clock.now();
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('scheduled posts (manual clock)', () => {
  it('SCHEDULED -> SUCCESS at scheduled_at with completed_at and tweet_id; seconds ignored; PUBLISHED preview', async () => {
    const at = sandboxNow() + 2 * 3600_000 + 37_000; // 2 h ahead, with seconds
    const s = await t.json([
      'ads',
      'scheduled',
      'create',
      '--as-user-id',
      owner,
      '--text',
      'Launch day',
      '--scheduled-at',
      iso(at),
      '--media-keys',
      VIDEO,
    ]);
    expect(s).toMatchObject({ scheduled_status: 'SCHEDULED', completed_at: null, tweet_id: null, media_keys: [VIDEO] });
    expect(s.scheduled_at).toBe(iso(Math.floor(at / 60_000) * 60_000));
    expect(s.id).toMatch(/^\d{15,19}$/);
    expect(
      (await t.list(['ads', 'previews', 'list', '--tweet-ids', s.id, '--tweet-type', 'SCHEDULED']))[0].tweet_id,
    ).toBe(s.id);
    await advance('1h');
    expect((await t.json(['ads', 'scheduled', 'get', s.id])).scheduled_status).toBe('SCHEDULED');
    await advance('61m'); // scheduled_at lies in the minute after now + 2 h
    const done = await t.json<Row & { tweet_id: string }>(['ads', 'scheduled', 'get', s.id]);
    expect(done).toMatchObject({ scheduled_status: 'SUCCESS', completed_at: s.scheduled_at });
    expect(done.tweet_id).toMatch(/^\d+$/);
    expect(
      (await t.list(['ads', 'previews', 'list', '--tweet-ids', done.tweet_id, '--tweet-type', 'PUBLISHED']))[0]
        .tweet_id,
    ).toBe(done.tweet_id);
    // A post that went out can no longer change or be deleted.
    await t.fails(1, ['ads', 'scheduled', 'update', s.id, '--text', 'late']);
  });

  it('update moves scheduled_at and removes media with an empty value; delete is hard and answers DELETED', async () => {
    const s = await t.json([
      'ads',
      'scheduled',
      'create',
      '--as-user-id',
      owner,
      '--text',
      'Later',
      '--scheduled-at',
      iso(sandboxNow() + 3600_000),
      '--media-keys',
      WIDE,
    ]);
    const moved = await t.json([
      'ads',
      'scheduled',
      'update',
      s.id,
      '--scheduled-at',
      iso(sandboxNow() + 5 * 3600_000),
      '--media-keys',
      '',
      '--name',
      'Moved',
    ]);
    expect(moved).toMatchObject({ media_keys: [], name: 'Moved', scheduled_status: 'SCHEDULED' });
    await advance('2h'); // past the old time: still scheduled
    expect((await t.json(['ads', 'scheduled', 'get', s.id])).scheduled_status).toBe('SCHEDULED');
    expect((await t.list(['ads', 'scheduled', 'list'])).map((x) => x.id)).toContain(s.id);
    const del = await t.json(['ads', 'scheduled', 'delete', s.id, '--yes']);
    expect(del).toMatchObject({ id: s.id, scheduled_status: 'DELETED' });
    await t.fails(1, ['ads', 'scheduled', 'get', s.id]);
    await t.fails(1, ['ads', 'scheduled', 'delete', s.id, '--yes']);
    await advance('4h'); // its old job finds nothing
    expect(t.collection('scheduled_tweets').has(s.id)).toBe(false);
  });

  it('refuses scheduled_at more than a year ahead (minute granularity) before sending', async () => {
    const now = Date.now();
    const r = await t.refused([
      'ads',
      'scheduled',
      'create',
      '--as-user-id',
      owner,
      '--text',
      'x',
      '--scheduled-at',
      iso(now + 366 * 86_400_000),
    ]);
    expect(r.stderr).toMatch(/--scheduled-at must be at most one year ahead/);
    await t.refused(['ads', 'scheduled', 'create', '--as-user-id', owner, '--text', 'x', '--scheduled-at', 'tomorrow']);
    const past = await t.fails(1, [
      'ads',
      'scheduled',
      'create',
      '--as-user-id',
      owner,
      '--text',
      'x',
      '--scheduled-at',
      iso(sandboxNow() - 60_000),
    ]);
    expect(past.stderr).toMatch(/must be in the future/);
  });
});

describe('poll cards (manual clock)', () => {
  it('create (text, image, video), list, get; closes after duration; delete is hard; no update', async () => {
    const created = sandboxNow();
    const poll = await t.json<Card>([
      'ads',
      'polls',
      'create',
      '--name',
      'Best color',
      '--duration-in-minutes',
      '30',
      '--first-choice',
      'Red',
      '--second-choice',
      'Blue',
      '--third-choice',
      'Green',
    ]);
    expect(poll).toMatchObject({
      card_type: 'TEXT_POLLS',
      duration_in_minutes: '30',
      closed: false,
      start_time: iso(created),
      end_time: iso(created + 30 * 60_000),
      card_uri: `card://${poll.id}`,
    });
    const img = await t.json([
      'ads',
      'polls',
      'create',
      '--name',
      'Image poll',
      '--duration-in-minutes',
      '5',
      '--first-choice',
      'a',
      '--second-choice',
      'b',
      '--media-key',
      WIDE,
    ]);
    expect(img).toMatchObject({ card_type: 'IMAGE_POLLS', media_url: expect.stringMatching(/^https:/) });
    expect(img.media_key).toBeUndefined(); // write-only
    const vid = await t.json([
      'ads',
      'polls',
      'create',
      '--name',
      'Video poll',
      '--duration-in-minutes',
      '10080',
      '--first-choice',
      'a',
      '--second-choice',
      'b',
      '--media-key',
      VIDEO,
    ]);
    expect(vid).toMatchObject({ card_type: 'VIDEO_POLLS', video_width: '1280' });
    const small = await t.fails(1, [
      'ads',
      'polls',
      'create',
      '--name',
      'x',
      '--duration-in-minutes',
      '5',
      '--first-choice',
      'a',
      '--second-choice',
      'b',
      '--media-key',
      SMALL,
    ]);
    expect(small.stderr).toMatch(/at least 800 px wide with width:height 1.91:1 \(got 600x314\)/);
    await t.fails(1, [
      'ads',
      'polls',
      'create',
      '--name',
      'x',
      '--duration-in-minutes',
      '5',
      '--first-choice',
      'a',
      '--second-choice',
      'b',
      '--media-key',
      SQUARE,
    ]);

    expect((await t.list(['ads', 'polls', 'list', '--q', 'best'])).map((x) => x.id)).toEqual([poll.id]);
    // Poll cards are legacy-style: cards list shows them only with --include-legacy-cards.
    expect(await t.json(['ads', 'cards', 'list', '--card-uris', poll.card_uri])).toEqual([]);
    expect(
      (await t.list(['ads', 'cards', 'list', '--card-uris', poll.card_uri, '--include-legacy-cards'])).map((x) => x.id),
    ).toEqual([poll.id]);
    expect((await t.list(['ads', 'polls', 'list', '--card-ids', `${img.id},${vid.id}`])).map((x) => x.id)).toEqual([
      img.id,
      vid.id,
    ]);
    await advance('29m');
    expect((await t.json(['ads', 'polls', 'get', poll.id])).closed).toBe(false);
    await advance('1m');
    expect((await t.json(['ads', 'polls', 'get', poll.id])).closed).toBe(true);
    // A poll card can be attached to a draft (its card_uri is a card of the account).
    expect(
      (await t.json(['ads', 'drafts', 'create', '--as-user-id', owner, '--text', 'Vote!', '--card-uri', poll.card_uri]))
        .card_uri,
    ).toBe(poll.card_uri);

    const del = await t.json(['ads', 'polls', 'delete', poll.id, '--yes']);
    expect(del.id).toBe(poll.id);
    await t.fails(1, ['ads', 'polls', 'get', poll.id, '--with-deleted']);
    const r = await t.run(['ads', 'polls', 'update', img.id, '--name', 'x']);
    expect(r.code).not.toBe(0);
  });

  it('refuses choices, order and duration before sending', async () => {
    const base = ['ads', 'polls', 'create', '--name', 'p', '--duration-in-minutes', '5', '--first-choice', 'a'];
    expect((await t.refused([...base, '--second-choice', 'b'.repeat(26)])).stderr).toMatch(
      /--second-choice must be at most 25/,
    );
    expect((await t.refused([...base, '--second-choice', 'b', '--fourth-choice', 'd'])).stderr).toMatch(
      /--fourth-choice needs .*missing --third-choice/,
    );
    expect(
      (
        await t.refused([
          'ads',
          'polls',
          'create',
          '--name',
          'p',
          '--duration-in-minutes',
          '4',
          '--first-choice',
          'a',
          '--second-choice',
          'b',
        ])
      ).stderr,
    ).toMatch(/between 5 and 10080/);
  });
});

describe('the seeded scheduled post', () => {
  it('goes out a day after the sandbox started, like any other', async () => {
    expect(t.collection('scheduled_tweets').get('1000000000000000001')!.scheduled_status).toBe('SCHEDULED');
    await advance('24h');
    expect(await t.json(['ads', 'scheduled', 'get', '1000000000000000001'])).toMatchObject({
      scheduled_status: 'SUCCESS',
      tweet_id: expect.stringMatching(/^\d+$/),
    });
  });
});
