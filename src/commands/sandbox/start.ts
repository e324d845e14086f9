// `xctl sandbox start`: serve the emulator until Ctrl-C; print its base URL and credentials.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError, errnoCode, errorMessage } from '../../core/errors.js';
import { declare } from '../define.js';
import { termList } from '../help-text.js';
import { OAUTH2_TOKEN_FIELDS, type Profile } from '../../core/config.js';
import { isLoopbackHost } from '../../contract/hosts.js';
import { FAULT_SYNTAX, faultNameRows, type FaultSpec } from '../../sandbox/faults.js';
import type { SandboxApp, SandboxSeed } from '../../sandbox/app.js';

export interface SandboxStartOptions {
  port?: string;
  host?: string;
  clock?: string;
  faults?: string;
  configure?: boolean;
  overwrite?: boolean;
  log?: boolean;
  state?: string;
}

/** The profile `--configure` writes when --profile (or XCTL_PROFILE) names none. */
export const SANDBOX_PROFILE = 'sandbox';

/**
 * True when a profile holds credentials of something other than a sandbox: any credential and a
 * base URL that is not loopback (none means the platform). Replacing those would lose them.
 */
export function holdsOtherCredentials(p: Profile | undefined): boolean {
  if (!p) return false;
  const creds = [
    'api_key',
    'api_secret',
    'access_token',
    'access_token_secret',
    'bearer_token',
    'client_id',
    'client_secret',
    'oauth2_access_token',
    'oauth2_refresh_token',
  ] as const;
  if (!creds.some((k) => p[k])) return false;
  if (!p.base_url) return true;
  try {
    return !isLoopbackHost(new URL(p.base_url).hostname);
  } catch {
    return true;
  }
}

export function register(parent: Command, runF = sandboxStart): void {
  declare(parent, {
    name: 'start',
    description: 'serve the emulator until Ctrl-C; prints base URL and credentials (one JSON line with --json)',
    options: [
      ['--port <n>', 'port (0 picks a free one)', '0'],
      ['--host <host>', 'address to listen on', '127.0.0.1'],
      ['--clock <mode>', 'real, or manual (moved by POST /_sandbox/clock)', 'real'],
      [
        '--faults <spec>',
        'inject faults: "error_rate=0.1,status=503,latency_ms=20,drop_rate=0.05,rate_limit=100" or JSON (names below)',
      ],
      ['--state <file>', 'load the state from this file if it exists, and save it there on exit (0600, atomic write)'],
      [
        '--configure',
        `store the sandbox credentials and base URL in profile "${SANDBOX_PROFILE}" (or the one --profile names)`,
      ],
      ['--overwrite', 'with --configure: replace a profile that holds other (non-sandbox) credentials'],
      ['--no-log', 'do not log requests on stderr'],
    ],
    helpAfter: () => `\nFaults (--faults ${FAULT_SYNTAX}):\n${termList(faultNameRows())}`,
    createsProfile: true,
    run: (ctx, o) => runF(ctx, o),
  });
}

export async function sandboxStart(ctx: Context, opts: SandboxStartOptions): Promise<void> {
  const { port, clock, faults } = await checkStartOptions(opts);
  const profileName = opts.configure ? await sandboxProfile(ctx, opts) : undefined;
  const state = opts.state !== undefined ? await readStateFile(ctx, opts.state) : undefined;
  const { startSandbox } = await import('../../sandbox/server.js');
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    ctx.io.warn(
      `--host ${host} exposes the sandbox beyond this machine: its seeded credentials are public, anyone who can reach it can use them (its admin endpoints still answer loopback clients only)`,
    );
  }
  let sb;
  try {
    sb = await startSandbox({
      port,
      host,
      clock,
      faults,
      ...(state?.snapshot !== undefined ? { state: state.snapshot } : {}),
      log: opts.log === false || ctx.io.quiet ? undefined : (line) => ctx.io.err(`sandbox: ${line}`),
    });
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${port} is in use`, { flag: '--port', hint: 'pass --port 0 for a free one' });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`cannot listen on ${host}`, { flag: '--host' });
    if (typeof code === 'string') throw new UsageError(`cannot start the sandbox: ${errorMessage(e)}`);
    if (state?.snapshot !== undefined)
      throw new UsageError(`--state: ${opts.state}: ${errorMessage(e)}`, { flag: '--state' });
    throw e;
  }
  if (profileName) await storeSeed(ctx, profileName, sb.seed);
  await announce(ctx, sb.seed, { clock: opts.clock, faults, profileName });
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sb.close();
  if (state) await saveState(sb.app, state.file, opts.state!, ctx);
  ctx.io.info('sandbox stopped');
}

/** --port, --clock and --faults, checked before anything starts. */
async function checkStartOptions(
  opts: SandboxStartOptions,
): Promise<{ port: number; clock: 'real' | 'manual'; faults: FaultSpec | undefined }> {
  // Digits only: Number() would take "1e3", "0x50" or " 80 " as ports.
  const port = /^\d{1,5}$/.test(opts.port ?? '0') ? Number(opts.port ?? 0) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0-65535 (got "${opts.port}")`, { flag: '--port' });
  if (opts.clock !== 'real' && opts.clock !== 'manual')
    throw new UsageError(`--clock must be real or manual (got "${opts.clock}")`, { flag: '--clock' });
  const { parseFaultSpec } = await import('../../sandbox/faults.js');
  let faults: FaultSpec | undefined;
  if (opts.faults) {
    try {
      faults = parseFaultSpec(opts.faults);
    } catch (e) {
      throw new UsageError(`--faults: ${errorMessage(e)}`, {
        flag: '--faults',
        hint: `--faults ${FAULT_SYNTAX}; names: see \`xctl sandbox start --help\``,
      });
    }
  }
  if (opts.overwrite && !opts.configure)
    throw new UsageError('--overwrite goes with --configure', { flag: '--overwrite' });
  return { port, clock: opts.clock, faults };
}

/**
 * The profile --configure writes: "sandbox" unless one is named, since the default profile may
 * hold real credentials (imported from twurl, say) that a loopback base URL and sandbox keys would
 * replace; one holding other credentials only with --overwrite.
 */
async function sandboxProfile(ctx: Context, opts: SandboxStartOptions): Promise<string> {
  ctx.allowNewProfile();
  const profileName = ctx.explicitProfile ? await ctx.profileName() : SANDBOX_PROFILE;
  const current = (await ctx.store()).profile(profileName);
  if (holdsOtherCredentials(current) && !opts.overwrite) {
    const where = current!.base_url ? `base URL ${current!.base_url}` : 'the platform';
    throw new UsageError(
      `profile "${profileName}" holds other credentials (for ${where}): refusing to replace them with the sandbox's`,
      {
        flag: '--profile',
        hint: `use another profile (\`xctl --profile NAME sandbox start --configure\`), or pass --overwrite to replace them`,
      },
    );
  }
  return profileName;
}

/** The sandbox's seeded credentials and base URL, stored in the profile. */
async function storeSeed(ctx: Context, profileName: string, s: SandboxSeed): Promise<void> {
  (await ctx.store()).updateProfile(profileName, {
    base_url: s.base_url,
    api_key: s.api_key,
    api_secret: s.api_secret,
    access_token: s.access_token,
    access_token_secret: s.access_token_secret,
    user_id: s.user_id,
    screen_name: s.screen_name,
    account_id: s.account_id,
    bearer_token: undefined,
    bearer_key: undefined,
    client_id: s.client_id,
    client_secret: s.client_secret,
    // An OAuth 2.0 token of an earlier sandbox means nothing to this one.
    ...Object.fromEntries(OAUTH2_TOKEN_FIELDS.map((k) => [k, undefined])),
  });
}

/** Where the sandbox listens and how to use it: its seed as JSON, or the lines a shell needs. */
async function announce(
  ctx: Context,
  seed: SandboxSeed,
  o: { clock?: string; faults?: FaultSpec; profileName?: string },
): Promise<void> {
  const { clock, faults, profileName } = o;
  // Which profile was written, and how to use it from another shell.
  const stored = profileName
    ? (await isDefault(ctx, profileName))
      ? [`credentials stored in profile "${profileName}" (the default profile)`]
      : [
          `credentials stored in profile "${profileName}"`,
          `use it from another shell with --profile ${profileName}, or: export XCTL_PROFILE=${profileName}`,
        ]
    : [];
  if (ctx.wantsJson) {
    ctx.io.out(JSON.stringify(seed));
    for (const line of stored) ctx.io.info(line);
  } else {
    const s = seed;
    ctx.io.out(
      [
        `xctl sandbox listening on ${s.base_url} (clock: ${clock}${faults ? `, faults: ${JSON.stringify(faults)}` : ''})`,
        ...(profileName ? stored : ['point xctl at it from another shell:']),
        ...(profileName
          ? []
          : [
              `  export XCTL_BASE_URL=${s.base_url}`,
              `  export XCTL_API_KEY=${s.api_key}`,
              `  export XCTL_API_SECRET=${s.api_secret}`,
              `  export XCTL_ACCESS_TOKEN=${s.access_token}`,
              `  export XCTL_ACCESS_TOKEN_SECRET=${s.access_token_secret}`,
              `  export XCTL_ACCOUNT_ID=${s.account_id}`,
              `  export XCTL_CLIENT_ID=${s.client_id}`,
              `  export XCTL_CLIENT_SECRET=${s.client_secret}`,
            ]),
        `user @${s.screen_name} (${s.user_id}), ads account ${s.account_id}; Ctrl-C stops it`,
      ].join('\n'),
    );
  }
}

/** --state: the sandbox's state written back on exit (atomically, 0600). */
async function saveState(app: SandboxApp, file: string, given: string, ctx: Context): Promise<void> {
  const { saveSnapshot } = await import('../../sandbox/snapshot.js');
  const { writeAtomic } = await import('../../core/config.js');
  try {
    writeAtomic(file, JSON.stringify(saveSnapshot(app), undefined, 1) + '\n');
    ctx.io.info(`sandbox state saved to ${given}`);
  } catch (e) {
    ctx.io.warn(`could not save the sandbox state to ${given}: ${errorMessage(e)}`);
  }
}

async function isDefault(ctx: Context, name: string): Promise<boolean> {
  return (await ctx.store()).defaultProfile === name;
}

/** The saved state to start from (none when the file does not exist yet: it is written on exit). */
/** A saved state holds the sandbox's entities: far below this. */
const STATE_FILE_MAX_BYTES = 256 * 2 ** 20;

async function readStateFile(ctx: Context, name: string): Promise<{ file: string; snapshot?: unknown }> {
  if (!name) throw new UsageError('--state needs a file name', { flag: '--state' });
  const fs = await import('node:fs');
  const path = await import('node:path');
  const file = path.resolve(ctx.cwd, name);
  let text: string;
  try {
    // Non-blocking open: a FIFO would otherwise hang here, deaf to Ctrl-C; then only a regular
    // file of a bounded size is read (/dev/zero would fill the memory).
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new UsageError(`--state: ${name} is not a regular file`, { flag: '--state' });
      if (st.size > STATE_FILE_MAX_BYTES)
        throw new UsageError(
          `--state: ${name} is larger than ${STATE_FILE_MAX_BYTES / 2 ** 20} MiB: not a sandbox state file`,
          { flag: '--state' },
        );
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if (errnoCode(e) === 'ENOENT') {
      if (!fs.existsSync(path.dirname(file)))
        throw new UsageError(`--state: the folder of ${name} does not exist`, { flag: '--state' });
      ctx.io.info(`${name} does not exist yet: starting fresh; the state is saved there on exit`);
      return { file };
    }
    throw new UsageError(`--state: cannot read ${name}: ${errorMessage(e)}`, { flag: '--state' });
  }
  // Its shape is checked when the sandbox loads it, before listening (a usage error too).
  try {
    const snapshot: unknown = JSON.parse(text);
    return { file, snapshot };
  } catch (e) {
    throw new UsageError(`--state: ${name} is not valid JSON: ${errorMessage(e)}`, { flag: '--state' });
  }
}
