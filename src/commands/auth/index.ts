// `xctl auth ...`: the credential commands. Each verb's logic is a plain function in its own file.
import type { Command } from 'commander';
import { run } from '../kit.js';
import { authSet, type AuthSetOptions } from './set.js';
import { authStatus } from './status.js';
import { authToken, type AuthTokenOptions } from './token.js';
import { profilesList, profilesRemove, profilesUse } from './profiles.js';
import { authLogin, DEFAULT_LOGIN_TIMEOUT, type AuthLoginOptions } from './login.js';
import { authLogout, type AuthLogoutOptions } from './logout.js';
import { authAppToken, type AuthAppTokenOptions } from './app-token.js';
import { authImport, type AuthImportOptions } from './import-twurlrc.js';

export function register(auth: Command): void {
  auth
    .command('set')
    .description('store credentials in the profile (secrets from stdin with "-" or a hidden prompt)')
    .option('--api-key <key>', 'API key (consumer key)')
    .option('--api-secret [-]', 'API secret: "-" reads stdin, no value prompts')
    .option('--access-token [token]', 'user access token: "-" reads stdin, no value prompts (a value on the command line still works, with a warning)')
    .option('--access-token-secret [-]', 'user access token secret: "-" reads stdin, no value prompts')
    .option('--bearer-token [-]', 'app-only bearer token: "-" reads stdin, no value prompts')
    .option('--user-id <id>', 'the user the access token belongs to')
    .option('--screen-name <name>', 'that user\'s handle')
    .addHelpText('after', '\nWith several "-" values, stdin holds one per line in the order api secret, access token secret, bearer token.')
    .action(run<AuthSetOptions>(authSet));

  auth
    .command('login')
    .description('log in as a user (three-legged OAuth 1.0a): approve in the browser, the token is stored in the profile')
    .option('--pin', 'PIN mode (oob): type the PIN shown after approving, or pipe it on stdin')
    .option('--callback-port <n>', 'port of the loopback callback on 127.0.0.1 (default: a free one)')
    .option('--access-level <level>', 'read or write: ask for less than the app\'s level (x_auth_access_type)')
    .option('--force-login', 'make the authorize page ask for the account credentials again')
    .option('--screen-name <handle>', 'prefill the login box with this account')
    .option('--no-browser', 'only print the authorize URL (stderr); do not open a browser')
    .option('--timeout <duration>', 'give up waiting for the approval after this long (90s, 5m, or seconds)', DEFAULT_LOGIN_TIMEOUT)
    .action(run<AuthLoginOptions>(authLogin));

  auth
    .command('logout')
    .description('revoke the user token at the service (POST /1.1/oauth/invalidate_token), then remove it from the profile')
    .option('--local-only', 'only remove it from the profile; do not contact the service')
    .action(run<AuthLogoutOptions>(authLogout));

  auth
    .command('app-token')
    .description('obtain the app-only bearer token once (POST /oauth2/token) and cache it; shown masked (`auth token --type app` prints it)')
    .option('--invalidate', 'revoke it at the service (signed as the app owner) and forget it')
    .action(run<AuthAppTokenOptions>(authAppToken));

  auth
    .command('import')
    .description('import profiles and bearer tokens from a twurl rc file (the file the official ads SDKs read)')
    .option('--twurlrc [path]', 'the rc file (default ~/.twurlrc)')
    .option('--overwrite', 'replace existing profiles of the same name that hold other credentials')
    .action(run<AuthImportOptions>(authImport));

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
