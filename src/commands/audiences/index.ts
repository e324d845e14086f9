// `xctl audiences ...`: the audience commands. Bespoke verbs get their own file.
import type { Command } from 'commander';
import { registerDoNotReachUpload, registerUpload } from './upload.js';
import { registerManage } from './manage.js';
import { registerSync } from './sync.js';
import { registerHash } from './hash.js';

export function register(audiences: Command): void {
  registerUpload(audiences);
  registerSync(audiences);
  registerHash(audiences);
  const dnr = audiences.command('do-not-reach').description('the account\'s do-not-reach list: users excluded from every campaign');
  registerDoNotReachUpload(dnr);
  registerManage(audiences, dnr);
}
