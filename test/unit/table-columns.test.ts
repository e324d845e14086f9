// Issue 46 items 2-3: at 80 columns every list keeps what a person reads a row by (its id, name,
// status, money in currency units, type, URL) and gives up timestamps and other records' ids
// first; every header a table shows is a name --fields takes. Every list: the ads table's lists
// and the hand-written ones, rendered in-process at 80 and 160 columns.
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/ads/resources.js';
import { printList } from '../../src/core/output.js';
import { isIdColumn, isNameColumn, isTimeColumn, readRank } from '../../src/core/output-table.js';
import { headerName } from '../../src/core/records.js';
import { SUBSCRIPTION_COLUMNS } from '../../src/commands/activity/subscriptions/shape.js';
import { WEBHOOK_COLUMNS } from '../../src/commands/webhooks/create.js';
import { RULE_COLUMNS } from '../../src/commands/stream/rules/post.js';
import { useTestContexts } from '../helpers/test-context.js';

const tc = useTestContexts();

/** A value such as the service gives for a field of that name. */
function valueOf(col: string): unknown {
  const last = col.split('.').pop()!;
  if (last === 'id' || last === 'id_str') return '8wku2';
  if (/_local_micro$|_micros?$/.test(last)) return 30_000_000;
  if (/_ids$/.test(last)) return ['1146654567674912769'];
  if (isIdColumn(last)) return '1146654567674912769';
  if (isNameColumn(last)) return 'Spring sale: shoes';
  if (isTimeColumn(last)) return '2026-01-15T10:00:00Z';
  if (/url$/.test(last)) return 'https://hooks.example.com/webhooks/x/receiver';
  if (last === 'valid') return true;
  if (/status$/.test(last)) return 'ACTIVE';
  if (/(type|types)$/.test(last)) return 'profile.update.bio';
  return 'WEBSITE_CLICKS';
}

/** Every list: [label, columns]. */
const LISTS: Array<[string, string[]]> = [
  ...RESOURCES.flatMap((r) =>
    r.operations
      .filter((op) => op.kind === 'list' && op.method === 'GET')
      .map((op): [string, string[]] => [
        `ads ${r.group ? `${r.group} ` : ''}${r.noun} ${op.verb}`,
        op.columns ?? r.columns,
      ]),
  ),
  ['activity subscriptions list', SUBSCRIPTION_COLUMNS],
  ['webhooks list', WEBHOOK_COLUMNS],
  ['stream rules list', RULE_COLUMNS],
];

async function render(columns: string[], width: number, fields?: string[]) {
  const t = tc({ tty: true, columns: width });
  const rec = { currency: 'USD', ...Object.fromEntries(columns.map((c) => [c, valueOf(c)])) };
  await printList(t.ctx.io, fields ? { fields } : {}, [rec, { ...rec }], { columns });
  const head = t.stdout().split('\n')[1] ?? '';
  const shown = head
    .split('│')
    .map((x) => x.trim())
    .filter(Boolean);
  return { shown, out: t.stdout(), err: t.stderr() };
}

describe('tables at 80 columns keep what a person reads (issue 46 item 2)', () => {
  it.each(LISTS)('%s: the own id stays; names, statuses and money go last', async (_label, columns) => {
    const { shown } = await render(columns, 80);
    const heads = columns.map(headerName);
    if (isIdColumn(columns[0]!)) expect(shown).toContain(heads[0]);
    const hidden = columns.filter((c) => !shown.includes(headerName(c)));
    const readHidden = hidden.some((c) => isNameColumn(c) || readRank(c) === 1);
    if (readHidden) {
      // Then nothing a person reads less is shown: no timestamp, no other record's id, no metric.
      const lesser = columns.slice(1).filter((c) => shown.includes(headerName(c)) && !isNameColumn(c) && !readRank(c));
      expect(lesser, `shown: ${shown.join(', ')}`).toEqual([]);
    }
  });

  it('campaigns: name, status and both budgets in currency units; the funding instrument and time go', async () => {
    const cols = RESOURCES.find((r) => r.name === 'campaigns')!.columns;
    const { shown, out, err } = await render(cols, 80);
    expect(shown).toEqual(['id', 'name', 'entity_status', 'daily_budget', 'total_budget']);
    expect(out).toContain(' 30.00 USD ');
    expect(err).toBe('(2 columns hidden: funding_instrument_id, created_at; use -o json or --fields)\n');
  });

  it('line items: the bid and the status stay', async () => {
    const cols = RESOURCES.find((r) => r.name === 'line_items')!.columns;
    const { shown } = await render(cols, 80);
    expect(shown).toEqual(['id', 'name', 'objective', 'bid', 'entity_status']);
  });

  it('stats: the billed charge stays', async () => {
    const op = RESOURCES.flatMap((r) => r.operations).find((o) => o.output === 'stats')!;
    const cols = op.columns ?? RESOURCES.find((r) => r.operations.includes(op))!.columns;
    const { shown } = await render(cols, 80);
    expect(shown).toContain('billed_charge');
  });

  it('activity subscriptions: the event type whole, the webhook id and time go', async () => {
    const { shown, out } = await render(SUBSCRIPTION_COLUMNS, 80);
    expect(shown).toContain('event_type');
    expect(out).toContain(' profile.update.bio ');
    expect(shown).not.toContain('webhook_id');
  });

  it('webhooks: the URL whole, created_at goes first', async () => {
    const { out } = await render(WEBHOOK_COLUMNS, 80);
    expect(out).toContain(' https://hooks.example.com/webhooks/x/receiver ');
    expect(out).not.toContain('created_at');
  });
});

describe('every header is a --fields name (issue 46 item 3)', () => {
  it.each(LISTS)('%s', async (_label, columns) => {
    for (const width of [80, 160]) {
      const { shown } = await render(columns, width);
      for (const head of shown) {
        const one = await render(columns, width, [head]);
        expect(one.shown, `${width}: --fields ${head}`).toEqual([head]);
      }
    }
  });
});
