// `xctl auth import --twurlrc [path]`: profiles and bearer tokens from twurl's rc file, the file
// both official ads SDKs read (format in docs/contract.md, notes "twurl rc file").
import type { Command } from 'commander';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Context } from '../../context.js';
import { UsageError, errorMessage } from '../../core/errors.js';
import { secretsOf, type Profile } from '../../core/config.js';
import { printList, type Rec } from '../../core/output.js';
import { mask } from '../../core/io.js';
import { declare } from '../define.js';

export interface AuthImportOptions {
  twurlrc?: string | boolean;
  overwrite?: boolean;
  insecure?: boolean;
}

export interface TwurlEntry {
  /** The xctl profile name it becomes. */
  name: string;
  screen_name: string;
  consumer_key: string;
  profile: Profile;
  isDefault: boolean;
}

const FIELDS: Array<[string, keyof Profile]> = [
  ['consumer_key', 'api_key'],
  ['consumer_secret', 'api_secret'],
  ['token', 'access_token'],
  ['secret', 'access_token_secret'],
];

function isMap(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Parses the rc text into profiles; a screen name with several apps gets one profile per key. */
export async function parseTwurlrc(text: string, file: string): Promise<TwurlEntry[]> {
  // yaml is CommonJS: in the bundle its dynamic import exposes only the default export.
  const yaml = (await import('yaml')) as typeof import('yaml') & { default?: typeof import('yaml') };
  const { parse } = yaml.default ?? yaml;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new UsageError(`--twurlrc: ${file} is not valid YAML: ${errorMessage(e).split('\n')[0]}`, {
      flag: '--twurlrc',
    });
  }
  if (!isMap(doc) || !isMap(doc.profiles))
    throw new UsageError(`--twurlrc: ${file} has no "profiles" map (is it a twurl rc file?)`, { flag: '--twurlrc' });
  const def =
    isMap(doc.configuration) && Array.isArray(doc.configuration.default_profile)
      ? doc.configuration.default_profile.map(String)
      : [];
  const bearers = isMap(doc.bearer_tokens) ? doc.bearer_tokens : {};
  const out: TwurlEntry[] = [];
  for (const [screen, apps] of Object.entries(doc.profiles)) {
    if (!isMap(apps)) continue;
    const keys = Object.keys(apps);
    for (const key of keys) {
      const e = apps[key];
      if (!isMap(e)) throw new UsageError(`--twurlrc: profiles.${screen}.${key} is not a map`, { flag: '--twurlrc' });
      const p: Profile = {};
      for (const [from, to] of FIELDS)
        if (e[from] !== undefined && e[from] !== null) (p as Record<string, string>)[to] = String(e[from]);
      if (!p.api_key || !p.api_secret)
        throw new UsageError(`--twurlrc: profiles.${screen}.${key} lacks consumer_key or consumer_secret`, {
          flag: '--twurlrc',
        });
      const username = String(e.username ?? screen).replace(/^@/, '');
      if (p.access_token) p.screen_name = username;
      // twurl's tokens start with the user id ("<id>-..."), the platform's format.
      const id = /^(\d{1,20})-/.exec(p.access_token ?? '')?.[1];
      if (id) p.user_id = id;
      const bearer = bearers[p.api_key];
      if (typeof bearer === 'string' && bearer) {
        p.bearer_token = bearer;
        p.bearer_key = p.api_key;
      }
      const base = screen.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40) || 'twurl';
      const name = keys.length > 1 ? `${base}.${p.api_key.replace(/[^A-Za-z0-9]/g, '').slice(0, 8)}` : base;
      out.push({
        name,
        screen_name: username,
        consumer_key: p.api_key,
        profile: p,
        isDefault: def[0] === screen && def[1] === key,
      });
    }
  }
  if (out.length === 0) throw new UsageError(`--twurlrc: ${file} holds no profiles`, { flag: '--twurlrc' });
  return out;
}

export function register(parent: Command, runF = authImport): void {
  declare(parent, {
    name: 'import',
    description: 'import profiles and bearer tokens from a twurl rc file (the file the official ads SDKs read)',
    options: [
      ['--twurlrc [path]', 'the rc file (default ~/.twurlrc)'],
      ['--overwrite', 'replace existing profiles of the same name that hold other credentials'],
      ['--insecure', 'import from a file other users can read (its secrets may have leaked: rotate them)'],
    ],
    createsProfile: true,
    run: (ctx, o) => runF(ctx, o),
  });
}

/** A path as one shell word: the hint's command must work when pasted. */
function shellQuote(p: string): string {
  return /^[A-Za-z0-9_./+:@%=,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/** Imports a twurl rc file into the profile store (no network). */
export async function authImport(ctx: Context, opts: AuthImportOptions): Promise<void> {
  ctx.allowNewProfile();
  if (opts.twurlrc === undefined || opts.twurlrc === false) {
    throw new UsageError('say what to import: --twurlrc [path] (default ~/.twurlrc)', { flag: '--twurlrc' });
  }
  const file =
    typeof opts.twurlrc === 'string'
      ? path.resolve(ctx.cwd, opts.twurlrc)
      : path.join(ctx.env.HOME || os.homedir(), '.twurlrc');
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new UsageError(`--twurlrc: cannot read ${file}: no such file`, { flag: '--twurlrc' });
  }
  // It holds secrets: a file others can read may already have leaked them (twurl writes 0600).
  const mode = st.mode & 0o777;
  if (mode & 0o077) {
    const who = mode & 0o007 ? 'every user' : 'its group';
    if (!opts.insecure) {
      throw new UsageError(
        `--twurlrc: ${file} is readable by ${who} (mode ${mode.toString(8)}): refusing to import secrets that may have leaked`,
        {
          flag: '--twurlrc',
          hint: `run \`chmod 600 ${shellQuote(file)}\` (and consider rotating the keys and tokens it holds), then import again; or pass --insecure to import anyway`,
        },
      );
    }
    ctx.io.warn(
      `${file} is readable by ${who} (mode ${mode.toString(8)}); importing because of --insecure: run \`chmod 600 ${shellQuote(file)}\` and consider rotating its secrets`,
    );
  }
  const entries = await parseTwurlrc(fs.readFileSync(file, 'utf8'), file);
  for (const e of entries) {
    for (const s of secretsOf(e.profile)) ctx.io.addSecret(s);
  }

  const store = await ctx.store();
  const existing = store.profiles();
  const rows: Rec[] = [];
  let skipped = 0;
  for (const e of entries) {
    const cur = existing[e.name];
    const same =
      cur && cur.api_key === e.profile.api_key && (cur.access_token ?? '') === (e.profile.access_token ?? '');
    let status = cur ? (same ? 'updated' : 'replaced') : 'imported';
    if (cur && !same && !opts.overwrite) {
      status = 'skipped: exists with other credentials';
      skipped++;
    } else {
      store.updateProfile(e.name, e.profile);
    }
    rows.push({
      profile: e.name,
      screen_name: e.screen_name,
      api_key: e.consumer_key,
      user_token: e.profile.access_token ? 'yes' : 'no',
      bearer: e.profile.bearer_token ? 'yes' : 'no',
      default: e.isDefault,
      status,
    });
  }
  const def = entries.find((e) => e.isDefault);
  if (def && rows.find((r) => r.profile === def.name)?.status !== 'skipped: exists with other credentials') {
    store.setDefaultProfile(def.name);
    ctx.io.info(`default profile is now "${def.name}" (twurl's default)`);
  }
  for (const r of rows) r.api_key = mask(r.api_key as string);
  await printList(ctx.io, await ctx.output(), rows, {
    columns: ['profile', 'screen_name', 'api_key', 'user_token', 'bearer', 'default', 'status'],
  });
  ctx.io.info(`imported ${rows.length - skipped} of ${rows.length} profile(s) from ${file} into ${store.path}`);
  if (skipped)
    ctx.io.warn(
      `${skipped} profile(s) skipped because a profile of that name holds other credentials: pass --overwrite to replace them`,
    );
}
