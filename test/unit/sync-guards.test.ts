// The guards of unattended syncs (issue 33): --max-removes and its default without a terminal,
// the first sync against an audience that already holds members, and automation mode in IO.
import { describe, expect, it } from 'vitest';
import { checkFirstSync, checkRemoves, maxRemovesFor, parseMaxRemoves } from '../../src/audiences/sync-guards.js';
import { UsageError } from '../../src/core/errors.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { testContext } from '../helpers/test-context.js';

const AUDIENCE = '/12/accounts/acct1/custom_audiences/aud1';

describe('--max-removes', () => {
  it('takes a count or a percentage up to 100%', () => {
    expect(parseMaxRemoves('500')).toEqual({ text: '500', count: 500 });
    expect(parseMaxRemoves('10%')).toEqual({ text: '10%', percent: 10 });
    for (const bad of ['', '-1', '101%', '1.5', 'ten', '10 %%'])
      expect(() => parseMaxRemoves(bad), bad).toThrow(UsageError);
  });

  it('defaults to 10% of the audience only when nobody is at a terminal', () => {
    expect(maxRemovesFor(undefined, true)).toEqual({ text: '10%', percent: 10 });
    expect(maxRemovesFor(undefined, false)).toBeUndefined();
    expect(maxRemovesFor('3', false)).toEqual({ text: '3', count: 3 });
  });

  it('refuses more removals than allowed, naming the numbers; 100% turns it off', () => {
    const limit = maxRemovesFor(undefined, true);
    expect(() => checkRemoves(limit, 48, 480, false)).not.toThrow();
    let err: UsageError | undefined;
    try {
      checkRemoves(limit, 380, 480, false);
    } catch (e) {
      err = e as UsageError;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect(err!.exitCode).toBe(2);
    expect(err!.message).toBe(
      "this sync would remove 380 of the audience's 480 members (79.2%), more than --max-removes 10% (48) allows by default when no terminal is attached; nothing was sent",
    );
    expect(err!.hint).toContain('--max-removes 380');
    expect(() => checkRemoves(parseMaxRemoves('100%'), 480, 480, true)).not.toThrow();
    expect(() => checkRemoves(parseMaxRemoves('10'), 11, 1000, true)).toThrow(
      'more than --max-removes 10 allows; nothing was sent',
    );
  });
});

describe('first sync against an audience', () => {
  it('holding members: refused (exit 2) after one read, naming --adopt and the state folder', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', AUDIENCE), json({ data: { id: 'aud1', audience_size: 480 } }));
    const t = testContext({ transport: reg });
    const err = await checkFirstSync(t.ctx, {
      accountId: 'acct1',
      audienceId: 'aud1',
      adopt: false,
      canRead: true,
      snapshot: '/s/aud1.email.snapshot',
    }).catch((e: UsageError) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toContain(
      'audience aud1 already holds 480 members and this is its first sync from here (no snapshot at /s/aud1.email.snapshot)',
    );
    expect((err as UsageError).hint).toContain('--state-dir / XCTL_STATE_DIR');
    expect((err as UsageError).hint).toContain('--adopt');
    expect(reg.requests.map((r) => r.method)).toEqual(['GET']);
    t.cleanup();
  });

  it('holding members with --adopt, or empty: goes ahead and answers the size', async () => {
    for (const [size, adopt] of [
      [480, true],
      [0, false],
    ] as const) {
      const reg = new HttpRegistry();
      reg.register(route('GET', AUDIENCE), json({ data: { id: 'aud1', audience_size: size } }));
      const t = testContext({ transport: reg });
      expect(
        await checkFirstSync(t.ctx, { accountId: 'acct1', audienceId: 'aud1', adopt, canRead: true, snapshot: 'x' }),
      ).toBe(size);
      t.cleanup();
    }
  });

  it('without credentials (--plan): warns that the real run checks, and reads nothing', async () => {
    const reg = new HttpRegistry();
    const t = testContext({ transport: reg });
    expect(
      await checkFirstSync(t.ctx, {
        accountId: 'acct1',
        audienceId: 'aud1',
        adopt: false,
        canRead: false,
        snapshot: 'x',
      }),
    ).toBeUndefined();
    expect(t.stderr()).toContain('the real sync is refused if the audience already holds members (unless --adopt)');
    expect(reg.requests).toHaveLength(0);
    t.cleanup();
  });
});

describe('automation mode (CI=true, XCTL_NO_PROMPT=1)', () => {
  const tty = { stdin: true, stdout: true, stderr: true };
  it('a PTY is not a person: no prompt, no redraw, no colour, unattended', async () => {
    for (const env of [{ CI: 'true' }, { XCTL_NO_PROMPT: '1' }]) {
      const t = testContext({ tty, env: { ...env, NO_COLOR: undefined } });
      const io = t.ctx.io;
      expect([
        io.automation,
        io.isStdinTTY,
        io.isStderrTTY,
        io.canRedraw,
        io.color,
        io.unattended,
        io.interactive,
      ]).toEqual([true, false, false, false, false, true, false]);
      const err = await t.ctx.confirm('delete webhook 1?').catch((e: UsageError) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
      expect((err as UsageError).flag).toBe('--yes');
      t.cleanup();
    }
  });

  it('a terminal without CI stays interactive; CI=false is not automation', () => {
    for (const env of [{}, { CI: 'false' }, { CI: '' }]) {
      const t = testContext({ tty, env: { ...env, NO_COLOR: undefined } });
      expect([t.ctx.io.automation, t.ctx.io.isStdinTTY, t.ctx.io.unattended, t.ctx.io.color]).toEqual([
        false,
        true,
        false,
        true,
      ]);
      t.cleanup();
    }
  });
});
