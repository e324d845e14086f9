// The README's examples for pointing the official clients at the sandbox run as written: each
// ```js block of the "official clients" section, saved under its file name, against a sandbox.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT, startTestSandbox, type TestSandbox } from '../helpers/cli.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(
  readme.indexOf('<!-- section: official-clients -->'),
  readme.indexOf('<!-- /section: official-clients -->'),
);
const examples = [...section.matchAll(/```js\n\/\/ (\S+\.mjs)\n([\s\S]*?)```/g)].map((m) => ({
  name: m[1]!,
  code: m[2]!,
}));

let t: TestSandbox;
// Inside the repository, so the examples' imports resolve to its node_modules as a user's would.
const dir = path.join(ROOT, 'test/conformance', `.examples-${process.pid}`);

beforeAll(async () => {
  t = await startTestSandbox();
  fs.mkdirSync(dir, { recursive: true });
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

function node(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { env: { ...process.env, ...t.env }, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it('the section has the two examples, twitter-api-v2 and XDK', () => {
  expect(examples.map((e) => e.name)).toEqual(['twitter-api-v2.mjs', 'xdk.mjs']);
});

it('the twitter-api-v2 example runs as written', async () => {
  const file = path.join(dir, examples[0]!.name);
  fs.writeFileSync(file, examples[0]!.code);
  const r = await node(file);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe(`signed in as ${t.sb.seed.screen_name}\nrules: cats\n`);
});

it('the XDK example runs as written', async () => {
  const file = path.join(dir, examples[1]!.name);
  fs.writeFileSync(file, examples[1]!.code);
  const r = await node(file);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe('subscriptions: 0\ncreated news.new\n');
});
