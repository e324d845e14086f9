// Output options in-process against a real sandbox (issue 20, items 5, 6, 18; moved from the e2e
// output-cli): the node transport and the sandbox's real paging, the command tree run in-process,
// so the formats and --all/--cursor/--jq are proven on real pages without a CLI process each. The
// JSON error of a bad --jq (main.ts) stays in test/e2e/shell.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { HttpRegistry } from '../helpers/http-registry.js';
import { outcome } from '../helpers/outcome.js';
import { testContext, type TestContext } from '../helpers/test-context.js';
import { sandboxCredentials } from '../helpers/cli.js';

interface LineItem {
  id: string;
  name: string;
}

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

/** `xctl ...argv` in-process against the sandbox with its seeded owner; its stdout. */
async function run(argv: string[]): Promise<string> {
  const s = sb.seed;
  const t: TestContext = testContext({
    env: { ...sandboxCredentials(s), XCTL_BEARER_TOKEN: undefined },
  });
  try {
    await t.run(argv);
    return t.stdout();
  } finally {
    t.cleanup();
  }
}

describe('output options against the sandbox (output-cli)', () => {
  it('--jq with --all runs over every page', async () => {
    const all = JSON.parse(await run(['ads', 'line-items', 'list', '--all', '-o', 'json'])) as LineItem[];
    expect(all.length).toBe(3);
    const ids = await run(['ads', 'line-items', 'list', '--count', '1', '--all', '--jq', '.[].id']);
    expect(ids).toBe(all.map((x) => `${x.id}\n`).join(''));
    expect(await run(['ads', 'line-items', 'list', '--count', '1', '--all', '--jq', 'length'])).toBe('3\n');
  });

  it('--include-cursor: following next_cursor with --cursor reads every record once', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    const page1 = ['ads', 'line-items', 'list', '--count', '1', '--include-cursor'];
    for (let i = 0; i < 5; i++) {
      const out = await run([...page1, '-o', 'json', ...(cursor ? ['--cursor', cursor] : [])]);
      const page = JSON.parse(out) as { data: Array<{ id: string }>; next_cursor: string | null };
      ids.push(...page.data.map((x) => x.id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    expect(cursor).toBeNull();
    expect(ids.length).toBe(3);
    expect(new Set(ids).size).toBe(3);
    const l = await run([...page1, '-o', 'jsonl', '--fields', 'id']);
    const lines = l
      .trimEnd()
      .split('\n')
      .map((x) => JSON.parse(x) as unknown);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual({ next_cursor: expect.any(String) });
  });

  it('request honours -o tsv / csv, --fields and --jq', async () => {
    const path = `/12/accounts/${sb.seed.account_id}/line_items`;
    const all = JSON.parse(await run(['ads', 'line-items', 'list', '--all', '-o', 'json'])) as LineItem[];
    const tsv = await run(['request', '--ads', path, '-o', 'tsv', '--fields', 'id,name']);
    expect(tsv).toBe(all.map((x) => `${x.id}\t${x.name}\n`).join(''));
    expect(await run(['request', '--ads', path, '-o', 'csv', '--fields', 'id'])).toBe(
      all.map((x) => `${x.id}\r\n`).join(''),
    );
    expect(await run(['request', '--ads', path, '--jq', '.data | length'])).toBe('3\n');
    const json = await run(['request', '--ads', path, '--json', 'id']);
    expect(JSON.parse(json)).toEqual(all.map((x) => ({ id: x.id })));
    const reg = new HttpRegistry();
    const raw = testContext({ transport: reg });
    try {
      expect((await outcome(raw.run(['request', '--ads', path, '--raw', '--jq', '.']))).code).toBe(2);
      expect(reg.requests).toEqual([]);
    } finally {
      raw.cleanup();
    }
  });
});
