// The emulator behaviour kept in src/sandbox/ads/ attaches to the ads table by resource name and
// verb: a misspelt name or verb, or a route left with nothing to answer, fails here; and the
// table the CLI loads carries none of it.
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/ads/resources.js';
import type { AdsCollection } from '../../src/ads/resource-types.js';
import { BEHAVIOURS } from '../../src/sandbox/ads/index.js';
import { withBehaviour } from '../../src/sandbox/ads/behaviour.js';

const names = Object.keys(BEHAVIOURS) as AdsCollection[];

describe('sandbox behaviour of the ads table', () => {
  it('names real resources and their verbs', () => {
    for (const name of names) {
      const rs = RESOURCES.filter((r) => r.name === name);
      expect(rs.length, name).toBeGreaterThan(0);
      for (const verb of Object.keys(BEHAVIOURS[name]?.ops ?? {}))
        expect(
          rs.some((r) => r.operations.some((o) => o.verb === verb)),
          `${name} ${verb}`,
        ).toBe(true);
    }
  });
  it('leaves no route without an answer: a standard verb or a bespoke one', () => {
    // As the sandbox installs them: the first resource that declares a method and path serves it
    // (`ads ref features` shows the accounts' own features endpoint under another noun).
    const seen = new Set<string>();
    const orphans: string[] = [];
    for (const r of RESOURCES.map((x) => withBehaviour(x, BEHAVIOURS[x.name]))) {
      for (const o of r.operations) {
        const key = `${o.method} /${o.version ?? '12'}${o.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (!o.std && !o.sandbox && o.kind !== 'batch') orphans.push(`${r.name} ${o.verb}`);
      }
    }
    expect(orphans).toEqual([]);
  });
  it('the CLI side does not carry it: the table has no hooks, bespoke operations or fixtures', () => {
    for (const r of RESOURCES) {
      expect(r.sandbox, r.name).toBeUndefined();
      expect(r.fixtures, r.name).toBeUndefined();
      for (const o of r.operations) expect(o.sandbox, `${r.name} ${o.verb}`).toBeUndefined();
    }
  });
});
