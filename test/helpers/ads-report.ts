// A week of simulated delivery for the chart and report tests: the seeded campaign, and the
// seven whole days (in the account's timezone, America/New_York) after the sandbox started,
// reached by moving the manual clock nine days forward once per sandbox.
import type { SandboxFixture } from './cli.js';

export interface Week {
  campaign: string;
  /** First day and the day after the last, YYYY-MM-DD (days in the account's timezone). */
  start: string;
  end: string;
}

const weeks = new WeakMap<object, Promise<Week>>();

/** The date (YYYY-MM-DD) of an instant in a timezone. */
const dateIn = (ms: number, tz: string) => new Date(ms).toLocaleDateString('en-CA', { timeZone: tz });

export function reportWeek(t: SandboxFixture): Promise<Week> {
  const key = t.sb;
  if (!weeks.has(key)) weeks.set(key, makeWeek(t));
  return weeks.get(key)!;
}

async function makeWeek(t: SandboxFixture): Promise<Week> {
  const state = await t.admin<{ clock: { now: string } }>('GET', '/_sandbox/state');
  const began = Date.parse(state.clock.now);
  await t.admin('POST', '/_sandbox/clock', { advance: '216h' });
  const r = await t.run(['ads', 'campaigns', 'list', '--json', 'id']);
  if (r.code !== 0) throw new Error(`ads campaigns list: ${r.stderr}`);
  const campaign = (JSON.parse(r.stdout) as Array<{ id: string }>)[0]!.id;
  const day = 86_400_000;
  return { campaign, start: dateIn(began + day, 'America/New_York'), end: dateIn(began + 8 * day, 'America/New_York') };
}
