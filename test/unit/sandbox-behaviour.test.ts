// The emulator behaviour kept in src/sandbox/ads/ attaches to the ads table by resource name and
// verb: a misspelt name or verb, or an operation left with nothing to answer, fails here.
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/ads/resources.js';
import { BEHAVIOURS } from '../../src/sandbox/ads/index.js';
import { withBehaviour } from '../../src/sandbox/ads/behaviour.js';

describe('sandbox behaviour of the ads table', () => {
  it('names real resources and their verbs', () => {
    for (const [name, b] of Object.entries(BEHAVIOURS)) {
      const rs = RESOURCES.filter((r) => r.name === name);
      expect(rs.length, name).toBeGreaterThan(0);
      for (const verb of Object.keys(b?.ops ?? {})) expect(rs.some((r) => r.operations.some((o) => o.verb === verb)), `${name} ${verb}`).toBe(true);
    }
  });
  it('leaves no operation without an answer: a standard verb or a bespoke one', () => {
    const orphans = RESOURCES.map((r) => withBehaviour(r, BEHAVIOURS[r.name]))
      .flatMap((r) => r.operations.filter((o) => !o.std && !o.sandbox && o.kind !== 'batch').map((o) => `${r.name} ${o.verb}`));
    expect(orphans).toEqual([]);
  });
  it('the CLI side does not carry it: the table itself has none of the moved behaviour', () => {
    for (const name of Object.keys(BEHAVIOURS)) {
      for (const r of RESOURCES.filter((x) => x.name === name)) {
        expect(r.fixtures, name).toBeUndefined();
        for (const verb of Object.keys(BEHAVIOURS[name]?.ops ?? {})) expect(r.operations.find((o) => o.verb === verb)?.sandbox, `${name} ${verb}`).toBeUndefined();
      }
    }
  });
});
