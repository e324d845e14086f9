// The ads table is built per resource, on first use (issue 28): loading it builds no operation,
// `xctl ads campaigns list` builds the parameters of campaigns and funding instruments only, and
// `xctl ads` / `xctl ads --help` registers the nouns without their verbs yet prints the same help.
// Each test loads the table afresh (vi.resetModules) and counts the parameter builders' calls.
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** The names of the parameters built since the spies were installed. */
let built: () => string[];

beforeEach(async () => {
  vi.resetModules();
  const { p } = await import('../../src/ads/params.js');
  const spies = (Object.keys(p) as Array<keyof typeof p>).map((k) => vi.spyOn(p, k));
  built = () => spies.flatMap((s) => s.mock.calls.map((c) => String(c[0])));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The names of every parameter (batch items included) of the resources named. */
async function paramsOf(names: string[]): Promise<Set<string>> {
  const { RESOURCES } = await import('../../src/ads/resources.js');
  const out = new Set<string>();
  for (const r of RESOURCES.filter((x) => names.includes(x.name)))
    for (const op of r.operations) {
      for (const d of op.params) out.add(d.name);
      const items = Object.values(op.batch?.operations ?? {});
      for (const d of items.flatMap((i) => i.params)) out.add(d.name);
    }
  return out;
}

describe('the ads table, built per resource on first use', () => {
  it('loading the table builds no parameter; reading a resource builds its own', async () => {
    const { RESOURCES, requireResource } = await import('../../src/ads/resources.js');
    expect(RESOURCES.length).toBeGreaterThan(30);
    expect(built()).toEqual([]);
    const ops = requireResource('line_items').operations;
    expect(ops.map((o) => o.verb)).toContain('list');
    expect(built()).toContain('line_item_ids');
    const own = await paramsOf(['line_items']);
    expect(built().filter((n) => !own.has(n))).toEqual([]);
    // Built once: a second read is the same array.
    const before = built().length;
    expect(requireResource('line_items').operations).toBe(ops);
    expect(built().length).toBe(before);
  });

  it('`ads campaigns list` builds campaigns and funding instruments only', async () => {
    const { register } = await import('../../src/commands/ads/index.js');
    const ads = new Command('ads');
    register(ads, ['campaigns', 'list']);
    const names = built();
    expect(names).toContain('campaign_ids');
    const own = await paramsOf(['campaigns', 'funding_instruments']);
    expect(names.filter((n) => !own.has(n))).toEqual([]);
    expect(names).not.toContain('line_item_ids');
    const campaigns = ads.commands.find((c) => c.name() === 'campaigns')!;
    expect(campaigns.commands.map((c) => c.name())).toContain('list');
  });

  it("`ads --help` registers the nouns without verbs; its help is the full tree's", async () => {
    const { register } = await import('../../src/commands/ads/index.js');
    const bare = new Command('ads');
    register(bare, []);
    expect(built()).toEqual([]);
    expect(bare.commands.map((c) => c.name())).toContain('campaigns');
    const noun = (cmd: Command, ...words: string[]) =>
      words.reduce((c, w) => c.commands.find((x) => x.name() === w)!, cmd);
    const nouns = [['campaigns'], ['stats'], ['stats', 'job'], ['ref', 'publishers']];
    for (const words of nouns)
      expect(noun(bare, ...words).commands.map((c) => c.name())).toEqual(
        words.length === 1 && words[0] === 'stats' ? ['job'] : [],
      );
    const full = new Command('ads');
    register(full);
    expect(noun(full, 'campaigns').commands.length).toBeGreaterThan(3);
    expect(noun(full, 'stats', 'job').commands.length).toBeGreaterThan(3);
    expect(bare.helpInformation()).toBe(full.helpInformation());
  });
});
