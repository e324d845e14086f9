// `xctl webhooks delete` tested where it lives (gh's list_test.go): flags -> options through runF,
// then the run function's exact terminal and piped output against the HTTP registry.
import { afterEach, describe, expect, it } from 'vitest';
import { register, webhooksDelete } from '../../src/commands/webhooks/delete.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { testContext, type TestContext } from '../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

describe('webhooks delete: flags -> options (runF)', () => {
  it.each([
    [['delete', '1234567890'], { id: '1234567890' }],
    [['delete', '--all-stale'], { allStale: true }],
    [['delete', '--all-stale', '--dry-run'], { allStale: true, dryRun: true }],
  ])('%j', async (argv, want) => {
    t = testContext();
    expect(await t.optionsOf(register, argv)).toEqual({ id: undefined, ...want });
  });
});

describe('webhooks delete: the run function', () => {
  it('deletes after --yes; says so on stderr, nothing on stdout (piped)', async () => {
    const http = new HttpRegistry().register(
      route('DELETE', '/2/webhooks/1234567890'),
      json({ data: { deleted: true } }),
    );
    t = testContext({ transport: http, globals: { yes: true } });
    await webhooksDelete(t.ctx, { id: '1234567890' });
    http.verify();
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toMatch(/deleted webhook 1234567890/);
  });

  it('refuses without a terminal and without --yes; sends nothing', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http });
    await expect(webhooksDelete(t.ctx, { id: '1234567890' })).rejects.toThrow('refusing without confirmation');
    expect(http.requests).toEqual([]);
  });

  it('refuses an id that is not 1-19 digits', async () => {
    t = testContext({ transport: new HttpRegistry(), globals: { yes: true } });
    await expect(webhooksDelete(t.ctx, { id: 'abc' })).rejects.toThrow('webhook id must be 1-19 digits (got "abc")');
  });

  it('--dry-run with an id: prints the DELETE it would send, asks nothing, sends nothing (issue 33)', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http });
    await webhooksDelete(t.ctx, { id: '1234567890', dryRun: true });
    expect(t.stdout()).toBe('{"dry_run":true,"method":"DELETE","url":"https://api.x.com/2/webhooks/1234567890"}\n');
    expect(t.stderr()).toBe('dry run: nothing was sent\n');
    expect(http.requests).toEqual([]);
  });
});
