// `xctl stream ...`: filtered stream rules and the webhooks that receive matching posts.
import type { Command } from 'commander';
import { run } from '../kit.js';
import { linkWebhook, listLinks, rulesAdd, rulesCounts, rulesDelete, rulesList, unlinkWebhook } from './rules.js';

export function register(cmd: Command): void {
  const rules = cmd.command('rules').description('filtered stream rules (up to 2,048 characters each)');
  rules.command('list').description('list the rules').action(run(rulesList));
  rules
    .command('add [values...]')
    .description('add rules: values as arguments and/or --file (JSON array, JSON lines, or one value per line)')
    .option('--tag <tag>', 'tag for the rules given as arguments')
    .option('--file <file>', 'rules file (@file, file or - for stdin)')
    .option('--dry-run', 'validate only; nothing is added')
    .action(run(rulesAdd));
  rules.command('counts').description('rule caps, and how many rules this app and its project use').action(run(rulesCounts));
  rules.command('delete <ids...>').description('delete rules by id').option('--dry-run', 'validate only; nothing is deleted').action(run(rulesDelete));
  const wh = cmd.command('webhooks').description('webhooks that receive posts matching the rules');
  wh.command('link <webhook-id>')
    .description('deliver matching posts to a webhook (again with another field set: one more link)')
    .option('--tweet-fields <list>', 'tweet.fields of each delivered post')
    .option('--expansions <list>', 'expansions, e.g. author_id')
    .option('--media-fields <list>', 'media.fields')
    .option('--poll-fields <list>', 'poll.fields')
    .option('--user-fields <list>', 'user.fields, e.g. username,name')
    .option('--place-fields <list>', 'place.fields')
    .action(run(linkWebhook));
  wh.command('unlink <webhook-id>').description('stop delivering to a webhook').action(run(unlinkWebhook));
  wh.command('list').description('list linked webhooks').action(run(listLinks));
}
