// `xctl completion bash|zsh|fish`: generated from the command tree, so it never drifts from it.
// Values are completed too: `-o` and every option with fixed choices, the ads table's enums, the
// event types, and `--profile` (names read when completing, by `xctl completion --profiles`,
// which prints profile names only: never a credential).
import type { Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import { checkProfileName } from '../core/config.js';
import { acceptedEventTypes } from '../contract/activity.js';
import { completionValues } from './annotations.js';
import { declareOn } from './define.js';
import { argumentKind, OPTION_KINDS } from './id-kinds.js';

/** Values after an option wherever it appears, and positional words under a command path. */
const OPTION_VALUES: Record<string, () => string[]> = {
  '--event': acceptedEventTypes,
  '--events': acceptedEventTypes,
  '--profile': () => [PROFILES],
};
const ARGUMENT_WORDS: Record<string, () => string[]> = { 'sandbox trigger': acceptedEventTypes };
/** Stands for "the profile names, asked for at completion time". */
const PROFILES = '@profiles';

interface Node {
  path: string; // space-joined command names below the root ("" for the root)
  subs: Array<{ name: string; desc: string }>;
  opts: Array<{ name: string; desc: string }>;
  valueOpts: string[];
  /** Values of this command's own options with fixed choices or enums (ads table). */
  values: Record<string, string[]>;
}

let rootCommand: Command | undefined;

export interface CompletionOptions {
  shell?: string;
  profiles?: boolean;
}

export function register(cmd: Command, _operands?: string[], runF = completion): void {
  rootCommand = cmd.parent ?? undefined;
  declareOn(cmd, {
    arguments: [['[shell]', 'bash, zsh or fish']],
    options: [
      {
        flags: '--profiles',
        description: 'print the profile names (what the scripts complete --profile with)',
        hidden: true,
      },
    ],
    helpAfter:
      "\nInstall:\n  bash: echo 'source <(xctl completion bash)' >> ~/.bashrc\n  zsh:  echo 'source <(xctl completion zsh)' >> ~/.zshrc   (after compinit)\n" +
      '        or: xctl completion zsh > "${fpath[1]}/_xctl"\n  fish: xctl completion fish > ~/.config/fish/completions/xctl.fish',
    run: (ctx, o, [shell]) => runF(ctx, { shell, profiles: o.profiles }),
  });
}

function optionNames(o: Option): string[] {
  return [o.long, o.short].filter((x): x is string => !!x);
}

/** One line of help text, for the zsh and fish descriptions. */
function short(s: string | undefined): string {
  const line = (s ?? '').split('\n')[0]!.replace(/\s+/g, ' ').trim();
  return line.length > 70 ? line.slice(0, 69) + '…' : line;
}

/** Values an option takes: commander choices, or an enum the ads table gave it (generate.ts). */
function valuesOf(o: Option): string[] | undefined {
  const v = o.argChoices ?? completionValues(o);
  return v ? [...v] : undefined;
}

export function commandTree(root: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (c: Command, path: string) => {
    const visible = c
      .createHelp()
      .visibleCommands(c)
      .filter((s) => s.name() !== 'help');
    const shown = c.options.filter((o) => !o.hidden);
    const opts = shown.flatMap((o) => optionNames(o).map((name) => ({ name, desc: short(o.description) })));
    // --json's field list is optional and never completed: it stays a plain flag here.
    const valueOpts = c.options.filter((o) => o.required || (o.optional && o.long !== '--json')).flatMap(optionNames);
    const values: Record<string, string[]> = {};
    for (const o of shown) {
      const v = valuesOf(o);
      if (v) for (const n of optionNames(o)) values[n] = v;
    }
    nodes.push({
      path,
      subs: visible.map((s) => ({ name: s.name(), desc: short(s.description()) })),
      opts: [...opts, { name: '--help', desc: 'show help' }],
      valueOpts,
      values,
    });
    for (const s of c.commands) if (s.name() !== 'help') walk(s, path ? `${path} ${s.name()}` : s.name());
  };
  walk(root, '');
  return nodes;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const key = (p: string) => q(p || '_');

/** Values by "path option" (own choices and enums) and by option (global ones: -o, --profile, events). */
function valueTables(nodes: Node[]): { byPath: Array<[string, string[]]>; global: Array<[string, string[]]> } {
  const global = new Map<string, string[]>(Object.entries(OPTION_VALUES).map(([o, f]) => [o, f()]));
  const root = nodes.find((n) => n.path === '');
  for (const [o, v] of Object.entries(root?.values ?? {})) global.set(o, v);
  const byPath: Array<[string, string[]]> = [];
  for (const n of nodes) if (n.path) for (const [o, v] of Object.entries(n.values)) byPath.push([`${n.path} ${o}`, v]);
  return { byPath, global: [...global] };
}

/** bash: ids from the service (`xctl __complete`), ids only; kind, comma prefix, word, flags. */
const BASH_IDS = `# Ids from the service (\`xctl __complete KIND PREFIX\`: cached, bounded in time): ids only.
_xctl_ids() {
  local kind="$1" pre="$2" cur="$3" line
  shift 3
  local -a ids=()
  while IFS= read -r line; do
    ids+=("\${line%%$'\\t'*}")
  done < <("\${COMP_WORDS[0]}" "$@" __complete "$kind" "$cur" 2>/dev/null)
  COMPREPLY=( $(compgen -P "$pre" -W "\${ids[*]}" -- "$cur") )
}
`;

/** zsh: ids from the service as "id:name" entries for _describe. */
const ZSH_IDS = `# Ids from the service (\`xctl __complete KIND PREFIX\`: cached, bounded in time) as
# "id:name" entries; $1 the command, $2 the kind, $3 the prefix, the rest --profile/--account.
__xctl_ids() {
  local cmd="$1" kind="$2" cur="$3" line
  shift 3
  reply=()
  for line in "\${(@f)$($cmd "$@" __complete "$kind" "$cur" 2>/dev/null)}"; do
    [[ -n "$line" ]] && reply+=("\${line%%$'\\t'*}:\${line#*$'\\t'}")
  done
  _xctl_kind=ids
}

`;

/** zsh: the completion function and how it registers (fpath, or compdef after compinit). */
const ZSH_TAIL = `_xctl() {
  local -a reply
  __xctl_candidates "\${(@)words[1,CURRENT]}"
  case $_xctl_kind in
    files) _files ;;
    values) compadd -P "$_xctl_prefix" -- "\${reply[@]}" ;;
    ids) _describe -t ids id reply -P "$_xctl_prefix" ;;
    *) _describe -t commands xctl reply ;;
  esac
}

if [[ "\${funcstack[1]}" == _xctl ]]; then
  _xctl "$@"
elif (( \${+functions[compdef]} )); then
  compdef _xctl xctl
else
  print -u2 "xctl completion: compinit has not run; add 'autoload -U compinit && compinit' before sourcing this"
fi
`;

/**
 * Arguments that take an id the service can list (issue 29 item 9), by "path index" ("ads
 * campaigns get 0"), or "path *" for a list of ids (`<ids...>`): the scripts then call
 * `xctl __complete <kind>`. Options are OPTION_KINDS (id-kinds.ts).
 */
export function idArguments(root: Command): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (c: Command, path: string) => {
    c.registeredArguments.forEach((a, i) => {
      const kind = argumentKind(path, a.name());
      if (kind) out.push([`${path} ${a.variadic ? '*' : i}`, kind]);
    });
    for (const s of c.commands) if (s.name() !== 'help') walk(s, path ? `${path} ${s.name()}` : s.name());
  };
  walk(root, '');
  return out;
}

/** The id options (OPTION_KINDS) the tree has, with their kind. */
function idOptions(nodes: Node[]): Array<[string, string]> {
  const present = new Set(nodes.flatMap((n) => n.valueOpts));
  return Object.entries(OPTION_KINDS).filter(([o]) => present.has(o));
}

export function bashScript(nodes: Node[], ids: Array<[string, string]> = []): string {
  const subs = nodes.map((n) => `  [${key(n.path)}]=${q(n.subs.map((s) => s.name).join(' '))}`).join('\n');
  const opts = nodes.map((n) => `  [${key(n.path)}]=${q(n.opts.map((o) => o.name).join(' '))}`).join('\n');
  const vals = [...new Set(nodes.flatMap((n) => n.valueOpts))].join(' ');
  const { byPath, global } = valueTables(nodes);
  const optVals = global.map(([o, v]) => `  [${q(o)}]=${q(v.join(' '))}`).join('\n');
  const pathVals = byPath.map(([k, v]) => `  [${q(k)}]=${q(v.join(' '))}`).join('\n');
  const argWords = Object.entries(ARGUMENT_WORDS)
    .map(([p, f]) => `  [${q(p)}]=${q(f().join(' '))}`)
    .join('\n');
  const idArgs = ids.map(([k, v]) => `  [${q(k)}]=${q(v)}`).join('\n');
  const idOpts = idOptions(nodes)
    .map(([k, v]) => `  [${q(k)}]=${q(v)}`)
    .join('\n');
  return `# xctl completion for bash (generated by \`xctl completion bash\`)
declare -gA _xctl_subs=(
${subs}
)
declare -gA _xctl_opts=(
${opts}
)
declare -gA _xctl_optvals=(
${optVals}
)
declare -gA _xctl_pathvals=(
${pathVals}
)
declare -gA _xctl_args=(
${argWords}
)
declare -gA _xctl_idargs=(
${idArgs}
)
declare -gA _xctl_idopts=(
${idOpts}
)
_xctl_value_opts=" ${vals} "
${BASH_IDS}_xctl_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="_" w i skip=0 npos=0
  local -a given=()
  for ((i=1; i<COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then
      case "$w" in
        --profile|--account|--base-url) given+=("$w" "\${COMP_WORDS[i+1]}") ;;
        --profile=*|--account=*|--base-url=*|--sandbox) given+=("$w") ;;
      esac
      [[ "$w" != *=* && "$_xctl_value_opts" == *" $w "* ]] && skip=1
      continue
    fi
    case " \${_xctl_subs[$path]} " in
      *" $w "*) if [[ "$path" == "_" ]]; then path="$w"; else path="$path $w"; fi ;;
      *) ((npos++)) ;;
    esac
  done
  local values="" pre="" kind=""
  if [[ "$prev" == -* && -n "\${_xctl_idopts[$prev]}" ]]; then
    # comma-separated lists (--campaign-ids a,b): complete the last item
    if [[ "$cur" == *,* ]]; then pre="\${cur%,*},"; cur="\${cur##*,}"; fi
    _xctl_ids "\${_xctl_idopts[$prev]}" "$pre" "$cur" "\${given[@]}"
    return
  fi
  kind="\${_xctl_idargs[$path $npos]:-\${_xctl_idargs[$path *]}}"
  if [[ "$cur" != -* && -n "$kind" && ! ( "$prev" == -* && "$_xctl_value_opts" == *" $prev "* ) ]]; then
    _xctl_ids "$kind" "" "$cur" "\${given[@]}"
    return
  fi
  if [[ "$prev" == -* && "$_xctl_value_opts" == *" $prev "* ]]; then
    values="\${_xctl_pathvals[$path $prev]}"
    [[ -z "$values" ]] && values="\${_xctl_optvals[$prev]}"
    if [[ "$values" == "${PROFILES}" ]]; then
      values="$("\${COMP_WORDS[0]}" completion --profiles 2>/dev/null)"
    fi
    if [[ -z "$values" ]]; then
      COMPREPLY=( $(compgen -f -- "$cur") )
      return
    fi
    # comma-separated lists (--events a,b): complete the last item
    if [[ "$cur" == *,* ]]; then pre="\${cur%,*},"; cur="\${cur##*,}"; fi
    COMPREPLY=( $(compgen -P "$pre" -W "$values" -- "$cur") )
    return
  fi
  local words="\${_xctl_subs[$path]} \${_xctl_args[$path]}"
  if [[ "$cur" == -* ]]; then words="\${_xctl_opts[$path]} \${_xctl_opts[_]}"; fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
_xctl() { _xctl_complete "$@"; }
complete -o default -F _xctl_complete xctl
`;
}

/**
 * A native zsh script: descriptions for commands and options (_describe), values after options,
 * files where nothing else applies. Loaded from fpath it is the completion function itself
 * (#compdef); sourced, it registers with compdef when compinit has run, and never runs compinit
 * itself (a second compinit slows every shell start and can drop other completions).
 */
export function zshScript(nodes: Node[], ids: Array<[string, string]> = []): string {
  const entries = (list: Array<{ name: string; desc: string }>) =>
    list.map((e) => `${e.name.replace(/:/g, '\\:')}:${e.desc}`).join('\n');
  const subs = nodes.map((n) => `  ${key(n.path)} ${q(entries(n.subs))}`).join('\n');
  const opts = nodes.map((n) => `  ${key(n.path)} ${q(entries(n.opts))}`).join('\n');
  const { byPath, global } = valueTables(nodes);
  const vals = [...global, ...byPath].map(([k, v]) => `  ${q(k)} ${q(v.join(' '))}`).join('\n');
  const argWords = Object.entries(ARGUMENT_WORDS)
    .map(([p, f]) => `  ${q(p)} ${q(f().join(' '))}`)
    .join('\n');
  const valueOpts = [...new Set(nodes.flatMap((n) => n.valueOpts))].join(' ');
  const idArgs = ids.map(([k, v]) => `  ${q(k)} ${q(v)}`).join('\n');
  const idOpts = idOptions(nodes)
    .map(([k, v]) => `  ${q(k)} ${q(v)}`)
    .join('\n');
  return `#compdef xctl
# xctl completion for zsh (generated by \`xctl completion zsh\`).
typeset -gA _xctl_subs _xctl_opts _xctl_vals _xctl_args _xctl_idargs _xctl_idopts
_xctl_subs=(
${subs}
)
_xctl_opts=(
${opts}
)
_xctl_vals=(
${vals}
)
_xctl_args=(
${argWords}
)
_xctl_idargs=(
${idArgs}
)
_xctl_idopts=(
${idOpts}
)
typeset -g _xctl_value_opts=' ${valueOpts} '

${ZSH_IDS}# What completes the last of the words given (the command line up to the cursor): sets
# reply to "name:description" entries, or to plain values (_xctl_kind=values), or asks for
# files (_xctl_kind=files). (Not "path": zsh ties it to PATH.)
__xctl_candidates() {
  local -a ws; ws=("$@")
  local cur="\${ws[-1]}" prev="\${ws[-2]}" cpath=_ w skip=0 i npos=0
  local -a given
  reply=(); typeset -g _xctl_kind=describe _xctl_prefix=''
  for (( i = 2; i < \${#ws}; i++ )); do
    w="\${ws[i]}"
    if (( skip )); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then
      case "$w" in
        --profile|--account|--base-url) given+=("$w" "\${ws[i+1]}") ;;
        --profile=*|--account=*|--base-url=*|--sandbox) given+=("$w") ;;
      esac
      [[ "$w" != *=* && "$_xctl_value_opts" == *" $w "* ]] && skip=1
      continue
    fi
    if (( \${\${(f)_xctl_subs[$cpath]}[(I)$w:*]} )); then
      if [[ "$cpath" == _ ]]; then cpath="$w"; else cpath="$cpath $w"; fi
    else
      (( npos++ ))
    fi
  done
  if [[ "$prev" == -* && -n "\${_xctl_idopts[$prev]}" ]]; then
    [[ "$cur" == *,* ]] && _xctl_prefix="\${cur%,*},"
    __xctl_ids "\${ws[1]}" "\${_xctl_idopts[$prev]}" "\${cur##*,}" "\${given[@]}"
    return
  fi
  local kind="\${_xctl_idargs[$cpath $npos]:-\${_xctl_idargs[$cpath *]}}"
  if [[ "$cur" != -* && -n "$kind" && ! ( "$prev" == -* && "$_xctl_value_opts" == *" $prev "* ) ]]; then
    __xctl_ids "\${ws[1]}" "$kind" "$cur" "\${given[@]}"
    return
  fi
  if [[ "$prev" == -* && "$_xctl_value_opts" == *" $prev "* ]]; then
    local values="\${_xctl_vals[$cpath $prev]:-\${_xctl_vals[$prev]}}"
    if [[ "$values" == '${PROFILES}' ]]; then
      values="$(\${ws[1]} completion --profiles 2>/dev/null)"
    fi
    if [[ -z "$values" ]]; then _xctl_kind=files; return; fi
    _xctl_kind=values
    [[ "$cur" == *,* ]] && _xctl_prefix="\${cur%,*},"
    reply=(\${=values})
    return
  fi
  if [[ "$cur" == -* ]]; then
    reply=(\${(f)_xctl_opts[$cpath]})
    [[ "$cpath" != _ ]] && reply+=(\${(f)_xctl_opts[_]})
  else
    reply=(\${(f)_xctl_subs[$cpath]})
    local a="\${_xctl_args[$cpath]}"
    [[ -n "$a" ]] && reply+=(\${=a})
  fi
}

${ZSH_TAIL}`;
}

export function fishScript(nodes: Node[], ids: Array<[string, string]> = []): string {
  const cases = nodes
    .map((n) => `    case ${q(n.path || '_')}\n      echo ${q(n.subs.map((s) => s.name).join(' '))}`)
    .join('\n');
  const lines = [
    '# xctl completion for fish (generated by `xctl completion fish`)',
    'function __xctl_subs',
    '  switch $argv[1]',
    cases,
    '  end',
    'end',
    'function __xctl_path',
    '  set -l path _',
    '  for t in (commandline -opc)[2..-1]',
    "    string match -q -- '-*' $t; and continue",
    '    if contains -- $t (string split " " (__xctl_subs $path))',
    '      if test "$path" = _; set path $t; else; set path "$path $t"; end',
    '    end',
    '  end',
    '  echo $path',
    'end',
    ...FISH_IDS,
    'complete -c xctl -f',
  ];
  const { global } = valueTables(nodes);
  const globalVals = new Map(global);
  for (const n of nodes) {
    const cond = `test (__xctl_path) = ${q(n.path || '_')}`;
    if (n.subs.length) {
      lines.push(`complete -c xctl -n ${q(cond)} -a ${q(n.subs.map((s) => s.name).join(' '))}`);
      for (const s of n.subs) if (s.desc) lines.push(`complete -c xctl -n ${q(cond)} -a ${q(s.name)} -d ${q(s.desc)}`);
    }
    for (const o of n.opts.filter((x) => x.name.startsWith('--'))) {
      const values = n.values[o.name] ?? globalVals.get(o.name);
      const idKind = OPTION_KINDS[o.name];
      const arg = idKind
        ? ` -xa ${q(`(__xctl_ids ${idKind} -)`)}`
        : values?.[0] === PROFILES
          ? ` -xa ${q('(xctl completion --profiles)')}`
          : values
            ? ` -xa ${q(values.join(' '))}`
            : '';
      lines.push(`complete -c xctl -n ${q(cond)} -l ${o.name.slice(2)}${arg}${o.desc ? ` -d ${q(o.desc)}` : ''}`);
    }
    const words = ARGUMENT_WORDS[n.path]?.();
    if (words) lines.push(`complete -c xctl -n ${q(cond)} -a ${q(words.join(' '))}`);
  }
  for (const [k, kind] of ids) {
    const at = k.lastIndexOf(' ');
    const cond = `test (__xctl_path) = ${q(k.slice(0, at) || '_')}`;
    lines.push(`complete -c xctl -n ${q(cond)} -a ${q(`(__xctl_ids ${kind} ${k.slice(at + 1)})`)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * fish: `__xctl_ids KIND N` lists ids from the service (`xctl __complete`) when the word being
 * completed is positional N (`*`: any; `-`: an option's value), passing --profile and --account on.
 */
const FISH_IDS = [
  'function __xctl_ids',
  '  set -l path _; set -l npos 0; set -l given; set -l skip 0',
  '  set -l toks (commandline -opc)',
  '  for i in (seq 2 (count $toks))',
  '    set -l t $toks[$i]',
  '    if test $skip = 1; set skip 0; continue; end',
  '    switch $t',
  '      case --profile --account --base-url',
  '        set skip 1; set -q toks[(math $i + 1)]; and set given $given $t $toks[(math $i + 1)]',
  '        continue',
  "      case '--profile=*' '--account=*' '--base-url=*' --sandbox",
  '        set given $given $t; continue',
  "      case '-*'",
  '        continue',
  '    end',
  '    if contains -- $t (string split " " (__xctl_subs $path))',
  '      if test "$path" = _; set path $t; else; set path "$path $t"; end',
  '    else',
  '      set npos (math $npos + 1)',
  '    end',
  '  end',
  '  if test "$argv[2]" != - -a "$argv[2]" != "*" -a "$argv[2]" != "$npos"; return; end',
  '  xctl $given __complete $argv[1] (commandline -ct) 2>/dev/null',
  'end',
];

function validProfileName(name: string): boolean {
  try {
    checkProfileName(name);
    return true;
  } catch {
    return false;
  }
}

export async function completion(ctx: Context, o: CompletionOptions): Promise<void> {
  if (o.profiles) {
    // Names only: the store's secrets never reach the shell. A name read back is offered only
    // when it is one `auth set` could have made: bash evaluates the words of `compgen -W`, so a
    // planted `$(touch /tmp/PWN)` would run at Tab.
    const names = Object.keys((await ctx.store()).profiles())
      .filter(validProfileName)
      .sort();
    if (names.length) ctx.io.raw(names.join('\n') + '\n');
    return;
  }
  const shell = o.shell;
  if (!rootCommand) throw new Error('completion needs the command tree');
  const nodes = commandTree(rootCommand);
  const ids = idArguments(rootCommand);
  if (shell === 'bash') ctx.io.raw(bashScript(nodes, ids));
  else if (shell === 'zsh') ctx.io.raw(zshScript(nodes, ids));
  else if (shell === 'fish') ctx.io.raw(fishScript(nodes, ids));
  else
    throw new UsageError(
      shell === undefined ? 'which shell? bash, zsh or fish' : `shell must be bash, zsh or fish (got "${shell}")`,
      { flag: '<shell>' },
    );
}
