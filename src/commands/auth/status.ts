import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed } from '../../core/errors.js';
import { ENV_CREDENTIALS, resolveCredentials } from '../../core/config.js';
import { mask } from '../../core/io.js';
import { printList, type Rec } from '../../core/output.js';
import { define } from '../define.js';

export function register(parent: Command, runF = authStatus): void {
  parent
    .command('status')
    .description('what is set in each profile (masked), and what the environment overrides; exit 1 when nothing usable is set')
    .action(define((ctx) => runF(ctx)));
}

/** Describes every profile, masked; exit 1 when the selected profile has nothing usable. */
export async function authStatus(ctx: Context): Promise<void> {
  const store = await ctx.store();
  const selected = await ctx.profileName();
  const profiles = store.profiles();
  if (!(selected in profiles)) profiles[selected] = {};
  const envSet = Object.keys(ENV_CREDENTIALS).filter((k) => ctx.env[k]);
  // Everything in the environment that changes what xctl uses, credentials or not.
  const envOther = ['XCTL_PROFILE', 'XCTL_CONFIG_DIR', 'XCTL_BASE_URL', 'XCTL_ACCOUNT_ID', 'XCTL_OUTPUT'].filter((k) => ctx.env[k]);
  const rows: Rec[] = [];
  let usable = false;
  for (const [name, p] of Object.entries(profiles).sort()) {
    const c = name === selected ? resolveCredentials(name, p, ctx.env) : resolveCredentials(name, p, {});
    const bearerValid = !!c.bearer_token && (c.source.bearer_token === 'env' || !p.bearer_key || p.bearer_key === c.api_key);
    const bearer = bearerValid ? (c.source.bearer_token === 'env' ? 'env' : 'cached') : c.bearer_token ? 'cached for another key' : '';
    // For whom: the handle and id stored with the token (a token from the environment is nobody we know).
    const who = c.screen_name ? `@${c.screen_name}${c.user_id ? ` (${c.user_id})` : ''}` : c.user_id ? c.user_id : 'set';
    const app = !!(c.api_key && c.api_secret);
    const user = !!(c.access_token && c.access_token_secret);
    if (name === selected) usable = app || user || bearerValid;
    rows.push({
      profile: name,
      default: name === store.defaultProfile,
      selected: name === selected,
      api_key: c.api_key ? mask(c.api_key) : '',
      api_secret: c.api_secret ? 'set' : '',
      user_token: user ? (c.source.access_token === 'env' ? 'from env' : who) : c.access_token ? 'secret missing' : '',
      user_id: c.source.access_token === 'env' ? '' : (c.user_id ?? ''),
      screen_name: c.source.access_token === 'env' ? '' : (c.screen_name ?? ''),
      bearer,
      from_env: name === selected ? envSet.join(' ') : '',
      base_url: p.base_url ?? '',
      account_id: p.account_id ?? '',
    });
  }
  await printList(ctx.io, await ctx.output(), rows, {
    columns: ['profile', 'selected', 'api_key', 'api_secret', 'user_token', 'bearer', 'from_env', 'base_url'],
  });
  ctx.io.info(`store: ${store.path}${ctx.env.XCTL_CONFIG_DIR ? ' (folder from XCTL_CONFIG_DIR)' : ''}`);
  if (envSet.length) ctx.io.info(`environment overrides the profile "${selected}": ${envSet.join(', ')}`);
  if (envOther.length) ctx.io.info(`environment also sets: ${envOther.map((k) => (k === 'XCTL_CONFIG_DIR' ? k : `${k}=${ctx.env[k]}`)).join(', ')}`);
  if (!usable) {
    throw new CheckFailed(`profile "${selected}" has no usable credentials`, {
      hint: 'run `xctl auth set --api-key KEY --api-secret -`, `xctl auth login`, or try the sandbox: `xctl sandbox start`',
    });
  }
}
