// `xctl completion bash|zsh|fish`: generated from the command tree, so it never drifts from it.
// Values are completed too: `-o` and every option with fixed choices, the ads table's enums, the
// event types, and `--profile` (names read when completing, by `xctl completion --profiles`,
// which prints profile names only: never a credential).
import type { Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import { acceptedEventTypes } from '../contract/activity.js';
import { completionValues } from './annotations.js';
import { declareOn } from './define.js';

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

export function bashScript(nodes: Node[]): string {
  const subs = nodes.map((n) => `  [${key(n.path)}]=${q(n.subs.map((s) => s.name).join(' '))}`).join('\n');
  const opts = nodes.map((n) => `  [${key(n.path)}]=${q(n.opts.map((o) => o.name).join(' '))}`).join('\n');
  const vals = [...new Set(nodes.flatMap((n) => n.valueOpts))].join(' ');
  const { byPath, global } = valueTables(nodes);
  const optVals = global.map(([o, v]) => `  [${q(o)}]=${q(v.join(' '))}`).join('\n');
  const pathVals = byPath.map(([k, v]) => `  [${q(k)}]=${q(v.join(' '))}`).join('\n');
  const argWords = Object.entries(ARGUMENT_WORDS)
    .map(([p, f]) => `  [${q(p)}]=${q(f().join(' '))}`)
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
_xctl_value_opts=" ${vals} "
_xctl_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="_" w i skip=0
  for ((i=1; i<COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then
      [[ "$w" != *=* && "$_xctl_value_opts" == *" $w "* ]] && skip=1
      continue
    fi
    case " \${_xctl_subs[$path]} " in
      *" $w "*) if [[ "$path" == "_" ]]; then path="$w"; else path="$path $w"; fi ;;
    esac
  done
  local values="" pre=""
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
export function zshScript(nodes: Node[]): string {
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
  return `#compdef xctl
# xctl completion for zsh (generated by \`xctl completion zsh\`).
typeset -gA _xctl_subs _xctl_opts _xctl_vals _xctl_args
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
typeset -g _xctl_value_opts=' ${valueOpts} '

# What completes the last of the words given (the command line up to the cursor): sets
# reply to "name:description" entries, or to plain values (_xctl_kind=values), or asks for
# files (_xctl_kind=files). (Not "path": zsh ties it to PATH.)
__xctl_candidates() {
  local -a ws; ws=("$@")
  local cur="\${ws[-1]}" prev="\${ws[-2]}" cpath=_ w skip=0 i
  reply=(); typeset -g _xctl_kind=describe _xctl_prefix=''
  for (( i = 2; i < \${#ws}; i++ )); do
    w="\${ws[i]}"
    if (( skip )); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then
      [[ "$w" != *=* && "$_xctl_value_opts" == *" $w "* ]] && skip=1
      continue
    fi
    if (( \${\${(f)_xctl_subs[$cpath]}[(I)$w:*]} )); then
      if [[ "$cpath" == _ ]]; then cpath="$w"; else cpath="$cpath $w"; fi
    fi
  done
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

_xctl() {
  local -a reply
  __xctl_candidates "\${(@)words[1,CURRENT]}"
  case $_xctl_kind in
    files) _files ;;
    values) compadd -P "$_xctl_prefix" -- "\${reply[@]}" ;;
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
}

export function fishScript(nodes: Node[]): string {
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
      const arg =
        values?.[0] === PROFILES
          ? ` -xa ${q('(xctl completion --profiles)')}`
          : values
            ? ` -xa ${q(values.join(' '))}`
            : '';
      lines.push(`complete -c xctl -n ${q(cond)} -l ${o.name.slice(2)}${arg}${o.desc ? ` -d ${q(o.desc)}` : ''}`);
    }
    const words = ARGUMENT_WORDS[n.path]?.();
    if (words) lines.push(`complete -c xctl -n ${q(cond)} -a ${q(words.join(' '))}`);
  }
  return lines.join('\n') + '\n';
}

export async function completion(ctx: Context, o: CompletionOptions): Promise<void> {
  if (o.profiles) {
    // Names only: the store's secrets never reach the shell.
    const names = Object.keys((await ctx.store()).profiles()).sort();
    if (names.length) ctx.io.raw(names.join('\n') + '\n');
    return;
  }
  const shell = o.shell;
  if (!rootCommand) throw new Error('completion needs the command tree');
  const nodes = commandTree(rootCommand);
  if (shell === 'bash') ctx.io.raw(bashScript(nodes));
  else if (shell === 'zsh') ctx.io.raw(zshScript(nodes));
  else if (shell === 'fish') ctx.io.raw(fishScript(nodes));
  else
    throw new UsageError(
      shell === undefined ? 'which shell? bash, zsh or fish' : `shell must be bash, zsh or fish (got "${shell}")`,
      { flag: '<shell>' },
    );
}
