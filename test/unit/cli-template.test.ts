// The e2e tests' command lines (test/helpers/cli.ts `xctl`): a value is one argument whatever it
// holds, and a value glued to text is refused rather than silently split or joined.
import { describe, expect, it } from 'vitest';
import { xctl } from '../helpers/cli.js';

describe('xctl`...` (the e2e tests argv)', () => {
  it('splits literal text on white space and keeps each value one argument', () => {
    const name = 'two words';
    expect(xctl`ads  campaigns create --name ${name}
      --daily-budget ${5} --ids ${['a b', 'c']}`).toEqual([
      'ads',
      'campaigns',
      'create',
      '--name',
      'two words',
      '--daily-budget',
      '5',
      '--ids',
      'a b',
      'c',
    ]);
    expect(xctl`--name ${''}`).toEqual(['--name', '']);
  });

  it('refuses a value glued to literal text on either side', () => {
    const v = 'x';
    expect(() => xctl`--name=${v}`).toThrow(/glued/);
    expect(() => xctl`--name ${v}s`).toThrow(/glued/);
  });
});
