// `xctl auth ...`: the credential commands, one file per verb.
import type { Command } from 'commander';
import { register as set } from './set.js';
import { register as login } from './login.js';
import { register as logout } from './logout.js';
import { register as appToken } from './app-token.js';
import { register as importRc } from './import.js';
import { register as status } from './status.js';
import { register as token } from './token.js';
import { register as profiles } from './profiles/index.js';
import { register as migrate } from './migrate.js';

export function register(auth: Command): void {
  for (const verb of [set, login, logout, appToken, importRc, status, token, profiles, migrate]) verb(auth);
}
