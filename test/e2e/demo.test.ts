// `npm ci && npm run demo` is one of the README's two set-up commands: the demo walks every
// capability through the real CLI against its embedded sandbox, and a change to a command's
// flags or refusals breaks it. Twice in one round it broke unseen (a field made required, a
// file's commands made opt-in), so the suite runs it as a user does.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

describe('npm run demo', () => {
  it('walks every capability and finishes (exit 0)', async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) env[k] = v;
    env.NO_COLOR = '1';
    delete env.CI;
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/demo.js')], { cwd: ROOT, env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, out.slice(-3000)).toBe(0);
    expect(out).toMatch(/demo finished in [\d.]+ s/);
    expect(out).toContain('wrote ');
  }, 300_000);
});
