import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import type { Profile } from '../../core/config.js';
import { readAll, readSecret } from '../input.js';
import { declare } from '../define.js';

export interface AuthSetOptions {
  apiKey?: string;
  apiSecret?: string | boolean;
  accessToken?: string | boolean;
  accessTokenSecret?: string | boolean;
  bearerToken?: string | boolean;
  userId?: string;
  screenName?: string;
  clientId?: string;
  clientSecret?: string | boolean;
}

const KEYISH = /^[\x21-\x7e]{1,512}$/;

export function register(parent: Command, runF = authSet): void {
  declare(parent, {
    name: 'set',
    description: 'store credentials in the profile (secrets from stdin with "-" or a hidden prompt)',
    options: [
      ['--api-key <key>', 'API key (consumer key)'],
      ['--api-secret [-]', 'API secret: "-" reads stdin, no value prompts'],
      [
        '--access-token [token]',
        'user access token: "-" reads stdin, no value prompts (a value on the command line still works, with a warning)',
      ],
      ['--access-token-secret [-]', 'user access token secret: "-" reads stdin, no value prompts'],
      ['--bearer-token [-]', 'app-only bearer token: "-" reads stdin, no value prompts'],
      ['--user-id <id>', 'the user the access token belongs to'],
      ['--screen-name <name>', "that user's handle"],
      ['--client-id <id>', 'OAuth 2.0 Client ID of the app (for `auth login --oauth2`; not the API key)'],
      ['--client-secret [-]', 'OAuth 2.0 Client Secret (confidential clients): "-" reads stdin, no value prompts'],
    ],
    helpAfter:
      '\nWith several "-" values, stdin holds one per line in the order api secret, access token, access token secret, bearer token, client secret.',
    createsProfile: true,
    run: (ctx, o) => runF(ctx, o),
  });
}

export async function authSet(ctx: Context, opts: AuthSetOptions): Promise<void> {
  ctx.allowNewProfile();
  const patch: Partial<Profile> = {};
  // The access token is a secret too: "-" (stdin) or a prompt, like the others. A value on the
  // command line is still taken (scripts rely on it) but lands in shell history and `ps`.
  const tokenInArgv = typeof opts.accessToken === 'string' && opts.accessToken !== '-' && opts.accessToken !== '';
  if (tokenInArgv)
    ctx.io.warn(
      '--access-token on the command line is kept in shell history and visible to other users in `ps`: pass "-" and pipe it on stdin',
    );
  const secretFlags: Array<[keyof Profile, string, string | boolean | undefined]> = [
    ['api_secret', '--api-secret', opts.apiSecret],
    ['access_token', '--access-token', tokenInArgv ? undefined : opts.accessToken],
    ['access_token_secret', '--access-token-secret', opts.accessTokenSecret],
    ['bearer_token', '--bearer-token', opts.bearerToken],
    ['client_secret', '--client-secret', opts.clientSecret],
  ];
  const fromStdin = secretFlags.filter(([, , v]) => v === '-');
  if (fromStdin.length > 1 && !ctx.io.isStdinTTY) {
    // Several secrets piped at once: one per line, in the documented order.
    const lines = (await readAll(ctx.io.stdin)).split(/\r?\n/);
    fromStdin.forEach(([field, flag], i) => {
      const v = lines[i]?.trim();
      if (!v) throw new UsageError(`${flag} -: line ${i + 1} of stdin is empty`, { flag });
      patch[field] = v;
    });
  } else {
    for (const [field, flag, v] of secretFlags) {
      const s = await readSecret(ctx, v, flag);
      if (s !== undefined) patch[field] = s;
    }
  }
  if (opts.apiKey !== undefined) patch.api_key = opts.apiKey;
  if (opts.clientId !== undefined) {
    const { checkClientId } = await import('../../core/oauth2.js');
    patch.client_id = checkClientId(opts.clientId);
  }
  if (tokenInArgv) patch.access_token = opts.accessToken as string;
  if (opts.userId !== undefined) {
    if (!/^\d{1,20}$/.test(opts.userId))
      throw new UsageError(`--user-id must be digits (got "${opts.userId}")`, { flag: '--user-id' });
    patch.user_id = opts.userId;
  }
  if (opts.screenName !== undefined) patch.screen_name = opts.screenName.replace(/^@/, '');
  for (const [k, v] of Object.entries(patch)) {
    if (k !== 'screen_name' && k !== 'user_id' && !KEYISH.test(String(v))) {
      throw new UsageError(`the value for ${k} must be printable ASCII without spaces`, {
        flag: '--' + k.replace(/_/g, '-'),
      });
    }
  }
  if (Object.keys(patch).length === 0) {
    throw new UsageError('nothing to set', {
      hint: 'e.g. `xctl auth set --api-key KEY --api-secret -` with the secret on stdin',
    });
  }
  // A new key invalidates the cached bearer (bearers belong to one app).
  const current = await ctx.profile();
  if (patch.api_key && current?.api_key && patch.api_key !== current.api_key && !patch.bearer_token) {
    patch.bearer_token = undefined;
    patch.bearer_key = undefined;
  }
  if (patch.bearer_token) patch.bearer_key = patch.api_key ?? current?.api_key;
  // A secret belongs to its client: a new client id without a new secret is a public client.
  if (patch.client_id && current?.client_secret && patch.client_id !== current.client_id && !patch.client_secret)
    patch.client_secret = undefined;
  await ctx.updateProfile(patch);
  const name = await ctx.profileName();
  const store = await ctx.store();
  // A keychain that is there but locked: the secrets went to the file, and the user is told.
  if (store.secrets.fellBack)
    ctx.io.warn(
      `the OS keychain cannot be used (${store.secrets.fellBack}): the secrets were written to the 0600 file ${store.path} instead; ` +
        'unlock the keychain and run `xctl auth migrate --to keyring` to move them, or set secret_storage=keyring to refuse instead',
    );
  ctx.io.info(
    `saved ${Object.keys(patch)
      .filter((k) => patch[k as keyof Profile] !== undefined && k !== 'bearer_key')
      .join(', ')} in profile "${name}"`,
  );
}
