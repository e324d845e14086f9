// `xctl auth ...`: the credential commands. Each verb's logic is a plain function in its own file.
import type { Command } from 'commander';
import { run } from '../kit.js';
import { authSet, type AuthSetOptions } from './set.js';
import { authStatus } from './status.js';
import { authToken, type AuthTokenOptions } from './token.js';
import { profilesList, profilesRemove, profilesUse } from './profiles.js';

export function register(auth: Command): void {
  auth
    .command('set')
    .description('store credentials in the profile (secrets from stdin with "-" or a hidden prompt)')
    .option('--api-key <key>', 'API key (consumer key)')
    .option('--api-secret [-]', 'API secret: "-" reads stdin, no value prompts')
    .option('--access-token <token>', 'user access token')
    .option('--access-token-secret [-]', 'user access token secret: "-" reads stdin, no value prompts')
    .option('--bearer-token [-]', 'app-only bearer token: "-" reads stdin, no value prompts')
    .option('--user-id <id>', 'the user the access token belongs to')
    .option('--screen-name <name>', 'that user\'s handle')
    .addHelpText('after', '\nWith several "-" values, stdin holds one per line in the order api secret, access token secret, bearer token.')
    .action(run<AuthSetOptions>(authSet));

  auth
    .command('status')
    .description('what is set in each profile (masked), and what the environment overrides; exit 1 when nothing usable is set')
    .action(run(authStatus));

  auth
    .command('token')
    .description('print a credential for scripts (the user access token, or the app bearer)')
    .option('--type <type>', 'user or app', 'user')
    .option('--secret', 'with --type user: print the access token secret instead')
    .action(run<AuthTokenOptions>(authToken));

  const profiles = auth.command('profiles').description('list, select and remove profiles');
  profiles.command('list').description('list profiles').action(run(profilesList));
  profiles.command('use <name>').description('make a profile the default').action(run(profilesUse));
  profiles.command('remove <name>').description('delete a profile and its credentials').action(run(profilesRemove));
}
