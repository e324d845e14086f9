// Fixtures of the audience tests: the error a run failed with (in-process), email files with
// their expected digests, and the sandbox's exact members of an audience (e2e).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CommanderError } from 'commander';
import type { TestSandbox } from './cli.js';

/** What a failed run reports: its exit code (commander's own usage errors are 2), message, hint. */
export interface Failure {
  exitCode: number;
  message: string;
  hint?: string;
  toJSON?: () => Record<string, unknown>;
}

/**
 * The error a run failed with (it must fail): an XctlError of src/ or of dist/ (the modules that
 * hash in worker threads are loaded built), or commander's (exit 2, as main.ts maps it).
 */
export async function failure(p: Promise<unknown>): Promise<Failure> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (e instanceof CommanderError) return { exitCode: 2, message: e.message };
  if (e instanceof Error && typeof (e as Partial<Failure>).exitCode === 'number') return e as Error & Failure;
  throw new Error(`expected the run to fail with an exit code, got ${String(e)}`);
}

export const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
export const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
/** `${p}${i}@example.com` for each i. */
export const emails = (ids: number[], p = 'user') => ids.map((i) => `${p}${i}@example.com`);
/** The distinct SHA-256 digests of values, sorted (as the sandbox lists members). */
export const digests = (values: string[]) => [...new Set(values.map(sha))].sort();

/** Writes lines to dir/name; returns the path. */
export function writeLines(dir: string, name: string, lines: string[]): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, lines.join('\n') + '\n');
  return f;
}

export interface Members {
  size: number;
  requests: number;
  updated: number;
  deleted: number;
  members: Record<string, string[]>;
  /** Users of several identifiers, by canonical key (their digests in it). */
  other: string[];
}

/** The exact members the sandbox holds for an audience, and the requests that reached it. */
export async function sandboxMembers(
  t: Pick<TestSandbox, 'admin'>,
  id: string,
  kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences',
): Promise<Members> {
  return (await t.admin<{ data: Members }>('GET', `/_sandbox/audience-members/${kind}/${id}`)).data;
}

/** A fresh, empty audience (or do-not-reach list) of the seeded account, put straight in sandbox state. */
export function seedAudience(
  t: Pick<TestSandbox, 'sb'>,
  id: string,
  kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences',
): string {
  const now = new Date().toISOString();
  t.sb.app.state.collection(kind).set(id, {
    id,
    account_id: t.sb.seed.account_id,
    name: id,
    description: '',
    audience_size: 0,
    deleted: false,
    created_at: now,
    updated_at: now,
  });
  return id;
}

/** Where the CLI keeps the journal of a sync left pending (one audience, one identifier type). */
export function pendingJournal(configDir: string, account: string, id: string, type = 'email'): string {
  return path.join(configDir, 'audiences', 'default', account, `${id}.${type}.pending`, 'journal.jsonl');
}

/**
 * Polls (every 25 ms, for a minute unless `ms` says otherwise) until `file` has more than `lines`
 * lines; throws when it never does (a test whose kill point never came must fail, not go on).
 */
export async function journalPast(file: string, lines: number, ms = 60_000): Promise<void> {
  let seen = 0;
  for (let i = 0; i < ms / 25; i++) {
    if (fs.existsSync(file)) seen = fs.readFileSync(file, 'utf8').split('\n').length;
    if (seen > lines) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`journalPast: ${file} never had more than ${lines} lines in ${ms} ms (last seen: ${seen})`);
}
