// Every global flag has an environment variable (issue 33), and --deadline bounds a whole
// command: its attempts and its waits together, ending with exit 75 ("retry later").
import { describe, expect, it } from 'vitest';
import { parseDeadline, withEnvGlobals } from '../../src/core/env-globals.js';
import { RetryLaterError, UsageError } from '../../src/core/errors.js';
import { HttpRegistry, route } from '../helpers/http-registry.js';
import { testContext } from '../helpers/test-context.js';

describe('environment variables for the global flags', () => {
  it('fill what the command line left unset; the command line wins', () => {
    const env = {
      XCTL_MAX_WAIT: '60',
      XCTL_DEADLINE: '2m',
      XCTL_QUIET: '1',
      XCTL_VERBOSE: 'true',
      XCTL_YES: 'yes',
      XCTL_SANDBOX: '1',
      XCTL_NO_PROGRESS: '1',
    };
    expect(withEnvGlobals({ progress: true }, env)).toEqual({
      maxWait: '60',
      deadline: '2m',
      quiet: true,
      verbose: true,
      yes: true,
      sandbox: true,
      progress: false,
    });
    expect(withEnvGlobals({ maxWait: '5', quiet: false, progress: false }, env)).toMatchObject({
      maxWait: '5',
      quiet: false,
      progress: false,
    });
  });

  it('0/false/no say no, an empty variable is unset, anything else is refused', () => {
    expect(withEnvGlobals({}, { XCTL_YES: '0', XCTL_QUIET: 'false', XCTL_VERBOSE: '' })).toEqual({
      yes: false,
      quiet: false,
    });
    expect(() => withEnvGlobals({}, { XCTL_YES: 'sure' })).toThrow(
      'XCTL_YES must be 1 or 0 (true/false, yes/no) (got "sure")',
    );
  });

  it('reach the context: XCTL_QUIET silences info, XCTL_YES confirms', async () => {
    const t = testContext({ env: { XCTL_QUIET: '1', XCTL_YES: '1' } });
    t.ctx.io.info('hidden');
    expect(t.stderr()).toBe('');
    expect(await t.ctx.confirm('delete?')).toBe(true);
    t.cleanup();
  });
});

describe('--deadline', () => {
  it('takes 90, 90s, 1.5m, 2h, 500ms; refuses the rest', () => {
    expect([
      parseDeadline('90'),
      parseDeadline('90s'),
      parseDeadline('1.5m'),
      parseDeadline('2h'),
      parseDeadline('500ms'),
    ]).toEqual([90_000, 90_000, 90_000, 7_200_000, 500]);
    for (const bad of ['', '0', '-1s', '5d', 'soon']) expect(() => parseDeadline(bad), bad).toThrow(UsageError);
  });

  it('aborts every request and wait of the command with a RetryLaterError (exit 75)', async () => {
    const reg = new HttpRegistry();
    // Always 503: the client would retry with back-off; the deadline ends the whole command.
    reg.register(
      route('GET', '/2/webhooks'),
      () => new Promise((r) => setTimeout(() => r({ status: 503, body: '{}' }), 40)),
      { times: 100 },
    );
    const t = testContext({
      transport: reg,
      globals: { deadline: '150ms' },
      clock: {
        now: () => Date.now(),
        sleep: (ms, s) => import('../../src/core/sleep.js').then((m) => m.abortableSleep(ms, s)),
      },
    });
    const http = await t.ctx.http();
    const started = Date.now();
    const err = await http.request({ method: 'GET', path: '/2/webhooks', auth: 'none' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryLaterError);
    expect((err as RetryLaterError).exitCode).toBe(75);
    expect((err as RetryLaterError).message).toBe('the --deadline of 150ms passed before the command finished');
    expect(Date.now() - started).toBeLessThan(1000);
    t.cleanup();
  });
});
