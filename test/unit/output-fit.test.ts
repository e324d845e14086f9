// Tables that fit the terminal (issue 20, item 3), the "more results" hint and --include-cursor
// (item 5): exact output through the test context, on a terminal and piped.
import { describe, expect, it } from 'vitest';
import { printList, printOne } from '../../src/core/output.js';
import { displayWidth, headers, layout, wrap } from '../../src/core/output-table.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { useTestContexts } from '../helpers/test-context.js';

const tc = useTestContexts();
const lines = (...l: string[]) => l.join('\n') + '\n';

const cards = [
  {
    id: '1a2b3c4d5e',
    name: 'Summer sale: two for one on every pair of shoes in the shop',
    card_type: 'WEBSITE',
    media_key: '3_1900000000000000001',
    website_url: 'https://shop.example.com/summer/sale/landing-page?utm_source=x',
    created_at: '2026-01-10T08:00:00Z',
  },
  {
    id: '9z8y7x',
    name: 'Winter',
    card_type: 'WEBSITE',
    media_key: '3_1900000000000000002',
    website_url: 'https://shop.example.com/w',
    created_at: '2026-01-11T08:00:00Z',
  },
];

describe('list tables fit the terminal', () => {
  // issue 29: a name is cut only after the other columns that could go have gone; issue 46: what
  // a person reads (a type, a URL) before other records' ids (media_key) and timestamps
  it('at 80 columns: ids whole, names and URLs kept, columns dropped and named on stderr, no rule between rows', async () => {
    const t = tc({ tty: true, columns: 80 });
    await printList(t.ctx.io, {}, cards, {
      columns: ['id', 'name', 'card_type', 'media_key', 'website_url', 'created_at'],
    });
    expect(t.stdout()).toBe(
      lines(
        '┌────────────┬────────────────────────────────┬────────────────────────────────┐',
        '│ id         │ name                           │ website_url                    │',
        '├────────────┼────────────────────────────────┼────────────────────────────────┤',
        '│ 1a2b3c4d5e │ Summer sale: two for one on e… │ https://shop.example.com/summ… │',
        '│ 9z8y7x     │ Winter                         │ https://shop.example.com/w     │',
        '└────────────┴────────────────────────────────┴────────────────────────────────┘',
      ),
    );
    expect(t.stderr()).toBe('(3 columns hidden: card_type, media_key, created_at; use -o json or --fields)\n');
  });

  it('every line fits at any width from 40 to 160 columns, and every id is printed whole', async () => {
    for (let w = 40; w <= 160; w += 7) {
      const t = tc({ tty: true, columns: w });
      await printList(t.ctx.io, {}, cards, {
        columns: ['id', 'name', 'card_type', 'media_key', 'website_url', 'created_at'],
      });
      const out = t.stdout().trimEnd().split('\n');
      for (const l of out) expect(displayWidth(l), `${w}: ${l}`).toBeLessThanOrEqual(w);
      for (const c of cards) {
        expect(t.stdout()).toContain(` ${c.id} `);
        // Another record's id may be dropped, never cut.
        expect(t.stdout()).not.toMatch(/3_19\d*…/);
      }
    }
  });

  it('ids are never cut even when they alone overflow; everything else is dropped first', () => {
    const col = (name: string, natural: number, id: boolean) => ({
      name,
      head: name,
      cells: [],
      id,
      natural,
      headFloor: natural,
      min: id ? natural : 8,
    });
    const r = layout([col('id', 30, true), col('text', 50, false), col('account_id', 30, true)], 40);
    expect(r.shown.map((c) => c.name)).toEqual(['id', 'account_id']);
    expect(r.widths).toEqual([30, 30]);
    expect(r.hidden).toEqual(['text']);
  });

  it('money columns as money in the record currency, headers without the wire unit; micros stay in tsv and json', async () => {
    const rec = {
      id: 'li1',
      bid_amount_local_micro: 5500000,
      daily_budget_amount_local_micro: 49500000,
      currency: 'EUR',
    };
    const t = tc({ tty: true });
    await printList(t.ctx.io, {}, [rec]);
    expect(t.stdout()).toBe(
      lines(
        '┌─────┬──────────┬──────────────┬──────────┐',
        '│ id  │ bid      │ daily_budget │ currency │',
        '├─────┼──────────┼──────────────┼──────────┤',
        '│ li1 │ 5.50 EUR │ 49.50 EUR    │ EUR      │',
        '└─────┴──────────┴──────────────┴──────────┘',
      ),
    );
    const p = tc({});
    await printList(p.ctx.io, {}, [rec]);
    expect(p.stdout()).toBe('li1\t5500000\t49500000\tEUR\n');
    const j = tc({});
    await printList(j.ctx.io, { format: 'jsonl' }, [rec]);
    expect(j.stdout()).toBe(JSON.stringify(rec) + '\n');
  });

  it('JSON blobs read as k=v and lists; a newline in a value shows as ⏎ (one line per record)', async () => {
    const t = tc({ tty: true, columns: 100 });
    await printList(t.ctx.io, {}, [
      {
        id: '1',
        filter: { user_id: '783214', tags: ['a', 'b'], note: 'two words' },
        places: ['US', 'CA'],
        text: 'line one\nline two',
      },
    ]);
    expect(t.stdout()).toBe(
      lines(
        '┌────┬────────────────────────────────────────────────┬────────┬───────────────────┐',
        '│ id │ filter                                         │ places │ text              │',
        '├────┼────────────────────────────────────────────────┼────────┼───────────────────┤',
        '│ 1  │ user_id=783214 tags=["a","b"] note="two words" │ US, CA │ line one⏎line two │',
        '└────┴────────────────────────────────────────────────┴────────┴───────────────────┘',
      ),
    );
  });
});

describe('single records fit the terminal', () => {
  it('a key/value view whose long values wrap inside the width (a long id breaks, never cut)', async () => {
    const t = tc({ tty: true, columns: 50 });
    await printOne(
      t.ctx.io,
      {},
      {
        id: 'c1a2b',
        name: 'Spring launch for the whole family and friends',
        daily_budget_amount_local_micro: 49500000,
        currency: 'USD',
        targeting: { locations: ['US', 'CA'], age: '18-34' },
        media_key: '3_19000000000000000011900000000000000001190000000000',
      },
    );
    expect(t.stdout()).toBe(
      lines(
        '┌──────────────┬─────────────────────────────────┐',
        '│ id           │ c1a2b                           │',
        '│ name         │ Spring launch for the whole     │',
        '│              │ family and friends              │',
        '│ daily_budget │ 49.50 USD                       │',
        '│ currency     │ USD                             │',
        '│ targeting    │ locations=["US","CA"] age=18-34 │',
        '│ media_key    │ 3_19000000000000000011900000000 │',
        '│              │ 000000001190000000000           │',
        '└──────────────┴─────────────────────────────────┘',
      ),
    );
  });

  it('headers cut to the same text are abbreviated word by word instead', () => {
    expect(headers(['audience_size', 'audience_type', 'is_owner', 'description'], [6, 6, 6, 20])).toEqual([
      'a_size',
      'a_type',
      'is_ow…',
      'description',
    ]);
    expect(headers(['audience_size', 'audience_type'], [9, 9])).toEqual(['audi_size', 'audi_type']);
    expect(headers(['funding_instrument_id', 'funding_instrument_name'], [8, 8])).toEqual(['fu_in_id', 'f_i_name']);
  });

  it('wrap() breaks words longer than the width and keeps every character', () => {
    expect(wrap('abcdefghij klm', 4)).toBe('abcd\nefgh\nij\nklm');
    expect(wrap('one two three', 7)).toBe('one two\nthree');
  });
});

describe('lists that stop after one page', () => {
  const page1 = (reg: HttpRegistry, next: string | null = 'c 2') =>
    reg.register(
      route('GET', '/12/accounts/acct1/campaigns'),
      json({
        data: [
          { id: 'c1', name: 'One' },
          { id: 'c2', name: 'Two' },
        ],
        next_cursor: next,
        data_type: 'campaign',
      }),
    );

  it('on a terminal: "more results" on stderr with the cursor quoted for the shell', async () => {
    const reg = new HttpRegistry();
    page1(reg);
    const t = tc({ tty: true, transport: reg });
    await t.run(['ads', 'campaigns', 'list', '--fields', 'id,name']);
    expect(t.stderr()).toBe("more results: --all, or --cursor 'c 2'\n");
  });

  it('piped, with no terminal at all: nothing on stderr', async () => {
    const reg = new HttpRegistry();
    page1(reg);
    const t = tc({ transport: reg });
    await t.run(['ads', 'campaigns', 'list', '--fields', 'id,name']);
    expect(t.stdout()).toBe('c1\tOne\nc2\tTwo\n');
    expect(t.stderr()).toBe('');
  });

  it('the last page says nothing', async () => {
    const reg = new HttpRegistry();
    page1(reg, null);
    const t = tc({ tty: true, transport: reg });
    await t.run(['ads', 'campaigns', 'list', '--fields', 'id']);
    expect(t.stderr()).toBe('');
  });

  it('--limit stopping inside a page has no exact cursor: it says so', async () => {
    const reg = new HttpRegistry();
    page1(reg);
    const t = tc({ tty: { stdout: false, stderr: true }, transport: reg });
    await t.run(['ads', 'campaigns', 'list', '--limit', '1', '--fields', 'id']);
    expect(t.stdout()).toBe('c1\n');
    expect(t.stderr()).toBe('more results: --all, or a larger --limit\n');
  });

  it('--include-cursor: json is {"data", "next_cursor"}; jsonl ends with a cursor line; null on the last page', async () => {
    const reg = new HttpRegistry();
    page1(reg);
    const t = tc({ tty: true, transport: reg });
    await t.run(['ads', 'campaigns', 'list', '--fields', 'id', '-o', 'json', '--include-cursor']);
    expect(t.stdout()).toBe(
      '{\n  "data": [\n    {\n      "id": "c1"\n    },\n    {\n      "id": "c2"\n    }\n  ],\n  "next_cursor": "c 2"\n}\n',
    );
    expect(JSON.parse(t.stdout())).toEqual({ data: [{ id: 'c1' }, { id: 'c2' }], next_cursor: 'c 2' });
    expect(t.stderr()).toBe('');
    const reg2 = new HttpRegistry();
    page1(reg2, null);
    const l = tc({ transport: reg2 });
    await l.run(['ads', 'campaigns', 'list', '--fields', 'id', '-o', 'jsonl', '--include-cursor']);
    expect(l.stdout()).toBe('{"id":"c1"}\n{"id":"c2"}\n{"next_cursor":null}\n');
    const e = tc({});
    await printList(e.ctx.io, { format: 'json', includeCursor: true }, []);
    expect(JSON.parse(e.stdout())).toEqual({ data: [], next_cursor: null });
  });

  it('--cursor starts where the hint said; activity subscriptions take --cursor too', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/2/activity/subscriptions', { query: { pagination_token: 'p2p2p2p2p2p2p2p2' } }),
      json({ data: [{ subscription_id: '3' }], meta: { next_token: 'p3' } }),
    );
    const t = tc({ tty: { stderr: true }, transport: reg });
    // A page token is at least 16 characters (the service refuses a shorter one; so does the CLI).
    await t.run(['activity', 'subscriptions', 'list', '--cursor', 'p2p2p2p2p2p2p2p2', '--fields', 'subscription_id']);
    expect(t.stdout()).toBe('3\n');
    expect(t.stderr()).toBe('more results: --all, or --cursor p3\n');
    reg.verify();
  });
});
