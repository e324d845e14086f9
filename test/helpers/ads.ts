// E2E helpers for the ads commands: a sandbox whose request log is kept (to prove that refused
// input sends nothing), JSON runs of the real CLI, and the seeded line items.
import { expect } from 'vitest';
import { startTestSandbox, type RunResult, type TestSandbox } from './cli.js';
import type { SandboxOptions } from '../../src/sandbox/app.js';
import type { AdsCollection } from '../../src/ads/resource-types.js';
import { oauth1Header } from '../../src/core/oauth1.js';
import type { Entity } from '../../src/sandbox/state.js';
import type { AdsReply, Row } from './json.js';
import { HttpRegistry } from './http-registry.js';
import type { TestContext, TestContextOptions } from './test-context.js';

export type { AdsReply, Row, V2Reply } from './json.js';

export interface AdsSandbox extends TestSandbox {
  /** Request lines seen by the sandbox ("METHOD /path STATUS Nms"). */
  requests: string[];
  /** Runs the CLI with --json, expects exit 0, returns the parsed stdout (one record unless T says otherwise). */
  json<T = Row>(args: string[], input?: string): Promise<T>;
  /** As json, for a command that prints a list (checked). */
  list<T = Row>(args: string[], input?: string): Promise<T[]>;
  /** Runs the CLI expecting a failure with this exit code; returns the result. */
  fails(code: number, args: string[], input?: string): Promise<RunResult>;
  /** Runs the CLI expecting exit 2 and that nothing reached the sandbox. */
  refused(args: string[], input?: string): Promise<RunResult>;
  /** Several refused runs at once (nothing reaches the sandbox from any); stderr of each. */
  refusedAll(cases: string[][]): Promise<string[]>;
  lineItem(objective: 'WEBSITE_CLICKS' | 'FOLLOWERS' | 'PREROLL_VIEWS'): string;
  collection(name: AdsCollection): Map<string, Entity>;
  /** A request signed as the seeded owner straight to the sandbox (to read raw error bodies). */
  signed<B = AdsReply>(method: string, path: string, json?: unknown): Promise<{ status: number; body: B }>;
}

export async function startAdsSandbox(opts: SandboxOptions = {}): Promise<AdsSandbox> {
  const requests: string[] = [];
  const t = await startTestSandbox({ ...opts, log: (l) => requests.push(l) });
  const collection = (name: AdsCollection) => t.sb.app.state.collection(name);
  const json = async (args: string[], input?: string): Promise<unknown> => {
    const r = await t.run([...args, '--json'], input !== undefined ? { input } : {});
    expect(r.code, `xctl ${args.join(' ')}\n${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout) as unknown;
  };
  return {
    ...t,
    requests,
    collection,
    json: <T>(args: string[], input?: string) => json(args, input) as Promise<T>,
    async list<T>(args: string[], input?: string) {
      const v = await json(args, input);
      expect(Array.isArray(v), `xctl ${args.join(' ')} printed a list`).toBe(true);
      return v as T[];
    },
    async fails(code, args, input) {
      const r = await t.run(args, input !== undefined ? { input } : {});
      expect(r.code, `xctl ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(code);
      return r;
    },
    async refused(args, input) {
      const before = requests.length;
      const r = await t.run(args, input !== undefined ? { input } : {});
      expect(r.code, `xctl ${args.join(' ')}\n${r.stderr}`).toBe(2);
      await new Promise((res) => setTimeout(res, 20));
      expect(requests.slice(before)).toEqual([]);
      return r;
    },
    async signed<B>(method: string, p: string, json?: unknown) {
      const s = t.sb.seed;
      const url = s.base_url + p;
      const authorization = oauth1Header(
        {
          consumerKey: s.api_key,
          consumerSecret: s.api_secret,
          token: s.access_token,
          tokenSecret: s.access_token_secret,
        },
        { method, url },
      );
      const res = await fetch(url, {
        method,
        headers: { authorization, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: json !== undefined ? JSON.stringify(json) : undefined,
      });
      return { status: res.status, body: (await res.json()) as B };
    },
    async refusedAll(cases) {
      const before = requests.length;
      const results = await Promise.all(cases.map((args) => t.run(args)));
      results.forEach((r, i) => expect(r.code, `xctl ${cases[i]!.join(' ')}\n${r.stderr}`).toBe(2));
      await new Promise((res) => setTimeout(res, 20));
      expect(requests.slice(before)).toEqual([]);
      return results.map((r) => r.stderr);
    },
    lineItem(objective) {
      for (const li of collection('line_items').values()) if (li.objective === objective) return li.id;
      throw new Error(`no seeded ${objective} line item`);
    },
  };
}

// --- In-process (test/unit/verbs/ads.test.ts, media.test.ts): refusals through the test context. ---

/** The exit code main.ts gives an error: commander's usage errors are 2, an XctlError its own. */
export function exitCodeOf(e: unknown): number {
  const err = e as { code?: unknown; exitCode?: unknown };
  if (typeof err.code === 'string' && err.code.startsWith('commander.')) return 2;
  return typeof err.exitCode === 'number' ? err.exitCode : 1;
}

/**
 * Runs `xctl ...argv` in-process (a local sandbox's base URL unless `env` says otherwise),
 * expects exit 2 with nothing sent, and returns the error's words (message, then stderr).
 */
export async function refusal(
  make: (o: TestContextOptions) => TestContext,
  argv: string[],
  o: { env?: Record<string, string | undefined>; stdin?: string } = {},
): Promise<string> {
  const http = new HttpRegistry();
  const t = make({ transport: http, env: o.env ?? { XCTL_BASE_URL: 'http://127.0.0.1:9' }, stdin: o.stdin });
  const err = await t.run(argv).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `xctl ${argv.join(' ')} was refused`).toBeDefined();
  expect(exitCodeOf(err), `xctl ${argv.join(' ')}: ${String(err)}`).toBe(2);
  expect(http.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  return `${err instanceof Error ? err.message : String(err)}\n${t.stderr()}`;
}

// --- The campaign + line item setup the ads e2e tests share (one definition, not a copy per file). ---

/** The first funding instrument of the seeded account (a credit card: campaigns need a daily budget). */
export function fundingInstrument(t: AdsSandbox): string {
  const acct = t.sb.seed.account_id;
  return [...t.collection('funding_instruments').values()].find((f) => f.account_id === acct)!.id;
}

/** `xctl ads campaigns create` on the seeded funding instrument: $1/day unless `more` says otherwise. */
export async function createCampaign(t: AdsSandbox, name: string, ...more: string[]): Promise<string> {
  const budget = more.includes('--daily-budget-amount-local-micro')
    ? []
    : ['--daily-budget-amount-local-micro', '1000000'];
  const args = ['ads', 'campaigns', 'create', '--name', name, '--funding-instrument-id', fundingInstrument(t)];
  return (await t.json([...args, ...budget, ...more])).id as string;
}

/** `xctl ads line-items create` of an ENGAGEMENTS line item on promoted posts (placements, then more flags). */
export function lineItemArgs(campaign: string, placements = 'ALL_ON_TWITTER', ...more: string[]): string[] {
  return [
    ...['ads', 'line-items', 'create', '--campaign-id', campaign, '--objective', 'ENGAGEMENTS'],
    ...['--product-type', 'PROMOTED_TWEETS', '--placements', placements, ...more],
  ];
}

/** A campaign and its line items (each given as the flags after its placements), made through the CLI. */
export async function campaignWithLineItems(
  t: AdsSandbox,
  o: { name: string; dailyBudgetMicro?: string; placements?: string; lineItems: string[][] },
): Promise<{ campaign: string; lineItems: string[] }> {
  const campaign = await createCampaign(
    t,
    o.name,
    '--daily-budget-amount-local-micro',
    o.dailyBudgetMicro ?? '1000000',
  );
  const lineItems: string[] = [];
  for (const more of o.lineItems)
    lineItems.push((await t.json(lineItemArgs(campaign, o.placements, ...more))).id as string);
  return { campaign, lineItems };
}
