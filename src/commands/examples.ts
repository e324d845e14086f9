// Examples shown at the end of each leaf command's help (gh's "EXAMPLES"), keyed by command path.
// Loaded only when help is asked for. Generated ads verbs carry their own (real-looking values
// from ads/example-values.ts, built from the ads table); an entry here replaces them. No
// placeholders (ID, KEY, ...): test/unit/help.test.ts refuses them. Each example is a plain
// command line (quotes allowed; no pipes or redirections), optionally followed by `  # note`:
// test/unit/help.test.ts parses every one with the real program definition.
import type { Command } from 'commander';
import { defaultVerbOf, generatedExamples } from './annotations.js';
import { helpWidth, termList, wrapWords } from './help-text.js';

export const EXAMPLES: Record<string, string[]> = {
  'auth set': [
    'xctl auth set --api-key xvz1evFS4wEEPTGEFPHBog --api-secret -  # the secret on stdin, or at a hidden prompt',
    'xctl auth set --client-id M1M5R3BMVy13QmpScXkzTUt5OE46MTpjaQ --client-secret -  # OAuth 2.0 app credentials',
  ],
  'auth login': [
    'xctl auth login',
    'xctl auth login --pin  # no local browser: type the PIN the page shows',
    'xctl auth login --oauth2 --scopes "tweet.read users.read offline.access"',
  ],
  'auth logout': ['xctl auth logout', 'xctl auth logout --oauth2 --local-only'],
  'auth app-token': ['xctl auth app-token', 'xctl auth app-token --invalidate'],
  'auth import': ['xctl auth import --twurlrc', 'xctl auth import --twurlrc old.twurlrc --overwrite'],
  'auth status': ['xctl auth status', 'xctl auth status --json'],
  'auth migrate': ['xctl auth migrate --to keyring', 'xctl --profile sandbox auth migrate --to file'],
  'auth token': [
    'xctl auth token --type app  # the bearer, for curl',
    'xctl auth token --type user  # the access token',
  ],
  'auth profiles list': ['xctl auth profiles list'],
  'auth profiles use': ['xctl auth profiles use sandbox'],
  'auth profiles remove': ['xctl auth profiles remove sandbox --yes'],
  request: [
    'xctl request /1.1/account/verify_credentials.json',
    `xctl request -X POST /2/tweets/search/stream/rules --auth app -d '{"add":[{"value":"cats"}]}'  # a JSON body, as xurl`,
    "xctl request --ads '/12/accounts?count=5' --paginate --jq '.data[].id'  # every page",
  ],
  'ads targeting add': [
    'xctl ads targeting add --line-item-id 8v7jo --targeting-type LOCATION --targeting-value 96683cc9126741d1  # the US',
    'xctl ads targeting add --line-item-id 8v7jo --targeting-type AGE --targeting-value AGE_21_TO_34',
    'xctl ads targeting add --line-item-id 8v7jo --targeting-type LANGUAGE --targeting-value en',
  ],
  __complete: [
    'xctl __complete campaign  # what Tab offers after `ads campaigns get`: one id and name a line',
    'xctl __complete webhook 1146  # the webhook ids that start with 1146',
  ],
  'config get': ['xctl config get account_id'],
  'config set': ['xctl config set output json', 'xctl config set base_url http://127.0.0.1:8080'],
  'config unset': ['xctl config unset account_id'],
  'config list': ['xctl config list'],
  'config path': ['xctl config path'],
  'webhooks create': ['xctl webhooks create https://hooks.example.com/x'],
  'webhooks list': ['xctl webhooks list', 'xctl webhooks list -o json'],
  'webhooks delete': [
    'xctl webhooks delete 1146654567674912769',
    'xctl webhooks delete --all-stale --dry-run  # list what killed receivers left',
  ],
  'webhooks validate': ['xctl webhooks validate 1146654567674912769'],
  'webhooks replay': [
    'xctl webhooks replay 1146654567674912769 --from now-2h',
    'xctl webhooks replay 1146654567674912769 --from now-3h --to now-1h  # or ISO times, or yyyymmddhhmm',
  ],
  'webhooks crc': ['xctl webhooks crc 9b4507b3-9040-4669-9ca3-6b94edb50553'],
  'webhooks verify': [
    'xctl webhooks verify --signature sha256=xjq2VbNDt4dBtb1kG6wDHnIAnk0ViR0Hy/HnsO9FZXw= --body event.json',
  ],
  'webhooks doctor': [
    'xctl webhooks doctor https://hooks.example.com/x',
    'xctl webhooks doctor --id 1146654567674912769 -o json --jq .cause',
  ],
  'webhooks send': [
    'xctl webhooks send --to http://127.0.0.1:3000/hooks --event profile.update.bio --data \'{"after":"hi"}\'',
    'xctl webhooks send --to https://hooks.example.com/x --from event.json  # a listen --json line',
  ],
  'webhooks listen': [
    'xctl webhooks listen --register  # on the sandbox: registered, subscribed to every event type',
    'xctl webhooks listen --register --events profile.update.bio,follow.follow --keep',
    'xctl webhooks listen --port 8080 --forward-to http://127.0.0.1:3000/hooks',
  ],
  'activity subscriptions create': [
    'xctl activity subscriptions create --event profile.update.bio --user-id 2244994945',
    'xctl activity subscriptions create --event dm.received --user-id 2244994945 --direction inbound --webhook 1146654567674912769',
  ],
  'activity subscriptions list': ['xctl activity subscriptions list', 'xctl activity subscriptions list --all -o json'],
  'activity subscriptions update': ['xctl activity subscriptions update 1882343291919171584 --tag bios'],
  'activity subscriptions delete': ['xctl activity subscriptions delete 1882343291919171584 1882343291919171585 --yes'],
  'activity stream': ['xctl activity stream', 'xctl activity stream --backfill-minutes 5'],
  'account-activity subscribe': ['xctl account-activity subscribe 1146654567674912769'],
  'account-activity list': ['xctl account-activity list 1146654567674912769'],
  'account-activity count': ['xctl account-activity count'],
  'account-activity unsubscribe': ['xctl account-activity unsubscribe 1146654567674912769 --user-id 2244994945 --yes'],
  'stream rules list': ['xctl stream rules list'],
  'stream rules add': [
    "xctl stream rules add 'cats OR kittens' --tag cats",
    'xctl stream rules add --file rules.txt --dry-run',
  ],
  'stream rules counts': ['xctl stream rules counts'],
  'stream rules delete': ['xctl stream rules delete 1882343291919171584 --yes'],
  'stream webhooks link': ['xctl stream webhooks link 1146654567674912769 --tweet-fields created_at,author_id'],
  'stream webhooks unlink': ['xctl stream webhooks unlink 1146654567674912769 --yes'],
  'stream webhooks list': ['xctl stream webhooks list'],
  'audiences upload': [
    'xctl audiences upload 1nmth users.csv  # header detected; normalized, hashed, batched',
    'xctl audiences upload 1nmth phones.txt --type phone_number --default-country US',
    'xctl audiences upload 1nmth users.csv --dry-run --out bodies.jsonl',
  ],
  'audiences sync': ['xctl audiences sync 1nmth users.csv --plan', 'xctl audiences sync 1nmth users.csv'],
  'audiences apply': [
    'xctl audiences apply -f audiences.yaml --plan -o json  # CI: exit 10 when anything would change',
    'xctl audiences apply -f audiences.yaml --prune',
  ],
  'audiences hash': ['xctl audiences hash users.csv --type email', 'xctl audiences hash users.csv --explain'],
  'audiences inspect': [
    'xctl audiences inspect crm-export.csv --default-country US',
    'xctl audiences inspect users.csv -o json',
  ],
  'audiences do-not-reach upload': ['xctl audiences do-not-reach upload 1ne3h users.csv'],
  'audiences do-not-reach list': ['xctl audiences do-not-reach list'],
  'audiences do-not-reach create': ['xctl audiences do-not-reach create --description "Opted out"'],
  'audiences do-not-reach delete': ['xctl audiences do-not-reach delete 1ne3h --yes'],
  'audiences list': ['xctl audiences list', 'xctl audiences list --all --fields id,name,audience_size -o tsv'],
  'audiences get': ['xctl audiences get 1nmth --fields name,audience_size'],
  'audiences create': [
    'xctl audiences create --name Newsletter',
    'xctl audiences create --name Newsletter --fields id -o tsv  # the id, for scripts',
  ],
  'audiences update': ['xctl audiences update 1nmth --description "from the CRM"'],
  'audiences delete': ['xctl audiences delete 1nmth --yes'],
  'audiences targeted': ['xctl audiences targeted 1nmth'],
  'audiences permissions list': ['xctl audiences permissions list 1nmth'],
  'audiences permissions grant': [
    'xctl audiences permissions grant 1nmth --granted-account-id 18ce54d4x5t --permission-level READ_ONLY',
  ],
  'audiences permissions revoke': ['xctl audiences permissions revoke 1nmth 1x2a3 --yes'],
  'audiences flexible create': ['xctl audiences flexible create --file flexible.json'],
  'audiences estimate': ['xctl audiences estimate --targeting targeting.json'],
  'media upload': [
    'xctl media upload banner.png',
    'xctl media upload clip.mp4 --category amplify_video --add-to-library --name "Spring clip"',
  ],
  'ads report': [
    'xctl ads report --campaign-ids 8wku2 --start 2026-05-01 --end 2026-05-08 --out week.html  # --open opens it',
    'xctl ads report --campaign-ids 8wku2 --start 2026-05-01 --end 2026-06-01 -o json  # the data',
  ],
  'ads stats job get': ['xctl ads stats job get 1381302245934485504'],
  'ads stats job wait': ['xctl ads stats job wait 1381302245934485504'],
  'ads stats job download': ['xctl ads stats job download 1381302245934485504'],
  'sandbox start': [
    'xctl sandbox start --configure  # credentials stored in the selected profile',
    'xctl sandbox start --json --state fixtures.json  # load fixtures; save them on exit',
    'xctl sandbox start --clock manual --faults error_rate=0.1,status=503',
  ],
  'sandbox trigger': [
    'xctl sandbox trigger profile.update.bio --user-id 2244994945 --data \'{"before":"old","after":"new"}\'',
  ],
  'sandbox logs': ['xctl sandbox logs  # follows on a terminal', 'xctl sandbox logs --no-follow --limit 20 -o jsonl'],
  'sandbox state': ['xctl sandbox state', 'xctl sandbox state --out fixtures.json'],
  'sandbox clock': ['xctl sandbox clock', 'xctl sandbox clock --advance 29h'],
  'sandbox faults list': ['xctl sandbox faults'],
  'sandbox faults set': [
    'xctl sandbox faults set error_rate=0.5 status=503 match=^/2/webhooks',
    'xctl sandbox faults set rate_limit=3',
  ],
  'sandbox faults clear': ['xctl sandbox faults clear'],
  changelog: ['xctl changelog', 'xctl changelog --since 2026-03-01 --grep replay'],
  completion: ['xctl completion bash', 'xctl completion zsh', 'xctl completion fish'],
  mcp: ['xctl mcp --sandbox', 'xctl mcp --root ./audiences --allow-writes --max-removes 5%'],
  'ads campaigns list': [
    'xctl ads campaigns list',
    'xctl ads campaigns list --all --fields id,name,entity_status -o tsv',
  ],
  'ads campaigns create': [
    'xctl ads campaigns create --name Spring --funding-instrument-id lygyi --daily-budget 30.00',
    'xctl ads campaigns create --name Spring --funding-instrument-id lygyi --daily-budget 30.00 --total-budget 500.00',
  ],
  'ads campaigns update': ['xctl ads campaigns update 8wku2 --entity-status PAUSED'],
  'ads accounts list': ['xctl ads accounts list', 'xctl ads accounts list --fields id,name -o tsv'],
};

/** The path of a command below the root: "ads campaigns list". */
export function commandPath(c: Command): string {
  const words: string[] = [];
  for (let x: Command | null = c; x && x.parent; x = x.parent) words.unshift(x.name());
  return words.join(' ');
}

/** A leaf's examples: the table's, else the generated ones (ads verbs), else none. */
export function examplesOf(c: Command): string[] {
  return EXAMPLES[commandPath(c)] ?? generatedExamples(c) ?? [];
}

/** The example's command line, without its note. */
export function exampleCommand(example: string): string {
  const i = example.indexOf('  # ');
  return i < 0 ? example : example.slice(0, i);
}

/** A command line broken with ` \` continuations to fit the help width. */
function continued(line: string, indent: string): string {
  const width = helpWidth();
  if (indent.length + line.length <= width) return indent + line;
  const words = line.split(' ');
  const out: string[] = [];
  let cur = indent;
  for (const w of words) {
    const first = cur.trim() === '';
    if (!first && cur.length + 1 + w.length + 2 > width) {
      out.push(cur + ' \\');
      cur = indent + '    ';
    }
    cur += (cur.trim() === '' ? '' : ' ') + w;
  }
  out.push(cur);
  return out.join('\n');
}

/** Adds an "Examples:" section to every leaf below `root` that has examples. */
export function attachExamples(root: Command): void {
  const walk = (c: Command) => {
    const subs = c.commands.filter((s) => s.name() !== 'help');
    const defName = defaultVerbOf(c);
    const def = defName ? subs.find((s) => s.name() === defName) : undefined;
    if (def) {
      // `xctl ads ref bidding-rules --currency USD` runs its default verb: its flags belong here too.
      c.addHelpText('after', () => {
        const h = def.createHelp();
        const rows = h
          .visibleOptions(def)
          .filter((o) => o.long !== '--help')
          .map((o): [string, string] => [h.optionTerm(o), h.optionDescription(o)]);
        const head = `\nWithout a command, runs \`${def.name()}\``;
        return rows.length ? `${head}, which takes:\n${termList(rows)}` : `${head}.`;
      });
    }
    if (!subs.length && c.parent) {
      const ex = examplesOf(c);
      if (ex.length) {
        c.addHelpText('after', () => {
          const lines: string[] = [];
          for (const e of ex) {
            const i = e.indexOf('  # ');
            if (i >= 0) lines.push(wrapWords(['#', ...e.slice(i + 4).split(' ')], '  '));
            lines.push(continued(`$ ${e.slice(0, i < 0 ? undefined : i)}`, '  '));
          }
          return `\nExamples:\n${lines.join('\n')}`;
        });
      }
    }
    for (const s of subs) walk(s);
  };
  walk(root);
}
