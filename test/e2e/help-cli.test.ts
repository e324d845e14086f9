// Help through the real CLI (issue 20 item 14): `xctl help a b c` at any depth, a bare `xctl` or
// group prints its help on stdout with exit 0 (as gh does), examples and global options shown.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('help', () => {
  it('`xctl help ads campaigns list` shows that leaf', async () => {
    const r = await runCli(['help', 'ads', 'campaigns', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: xctl ads campaigns list \[options\]/);
    expect(r.stdout).toMatch(/\nExamples:\n {2}\$ xctl ads campaigns list\n/);
    expect(r.stdout).toMatch(/\nGlobal Options:\n/);
    const deep = await runCli(['help', 'audiences', 'permissions', 'revoke']);
    expect(deep.stdout).toMatch(/^Usage: xctl audiences permissions revoke \[options\] <audience-id> <permission-id>/);
  });
  it('`xctl` and `xctl ads` alone print help on stdout and exit 0', async () => {
    for (const args of [[], ['ads'], ['ads', 'campaigns'], ['help']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/^Usage: xctl/);
      expect(r.stderr).toBe('');
    }
  });
  it('an unknown command below a group is an error with did-you-mean, also under help (issue 29 item 7)', async () => {
    for (const args of [
      ['help', 'ads', 'media'],
      ['ads', 'media'],
      ['ads', 'media', '--help'],
    ]) {
      const r = await runCli(args);
      expect([r.code, r.stdout], args.join(' ')).toEqual([2, '']);
      expect(r.stderr).toBe(
        "error: unknown command 'media' for 'xctl ads' (did you mean media-library or media-creatives?)\nhint: media is a command group of its own: `xctl media --help`, e.g. `xctl media upload FILE`\n",
      );
    }
    const typo = await runCli(['help', 'ads', 'campaign']);
    expect([typo.code, typo.stderr]).toEqual([
      2,
      "error: unknown command 'campaign' for 'xctl ads' (did you mean campaigns?)\nhint: `xctl ads --help` lists its commands\n",
    ]);
  });

  it('a group lists its commands first, then its options and the global ones (as gh does)', async () => {
    for (const args of [['ads', '--help'], ['--help'], ['audiences', 'permissions', '--help']]) {
      const heads = (await runCli(args)).stdout.split('\n').filter((l) => /^[A-Z][A-Za-z ]*:$/.test(l));
      expect(heads.slice(0, 2), args.join(' ')).toEqual(['Commands:', 'Options:']);
    }
    const leaf = (await runCli(['ads', 'campaigns', 'list', '--help'])).stdout;
    expect(leaf.indexOf('Options:')).toBeLessThan(leaf.indexOf('Global Options:'));
  });

  it('did-you-mean for enum values and event types, before anything is sent', async () => {
    const env = { XCTL_ACCOUNT_ID: 'a1', XCTL_BASE_URL: 'http://127.0.0.1:1' };
    const tt = await runCli(
      ['ads', 'targeting', 'add', '--line-item-id', 'l1', '--targeting-type', 'INTERESTS', '--targeting-value', '1'],
      { env },
    );
    expect([tt.code, tt.stderr]).toEqual([2, expect.stringContaining('hint: did you mean --targeting-type INTEREST?')]);
    const ev = await runCli(['sandbox', 'trigger', 'profile.update.bo'], { env });
    expect([ev.code, ev.stderr]).toEqual([
      2,
      expect.stringContaining('hint: did you mean profile.update.bio, profile.update.geo or profile.update.url?'),
    ]);
  });

  it('wraps to 80 columns when piped', async () => {
    const r = await runCli(['ads', 'scheduled-promoted-tweets', 'get', '--help']);
    for (const line of r.stdout.split('\n'))
      if (line.trim().includes(' ')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(r.stdout).toMatch(/Arguments:\n {2}scheduled-promoted-tweet-id +the scheduled promoted tweet's id/);
  });
  it("a command with a default verb lists that verb's flags", async () => {
    const r = await runCli(['ads', 'ref', 'bidding-rules', '--help']);
    expect(r.stdout).toMatch(/Without a command, runs `list`, which takes:\n(.*\n)* {2}--currency/);
  });
});
