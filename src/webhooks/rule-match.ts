// Filtered-stream rule values: the length limit and a keyword matcher for the sandbox. The
// matcher covers the common core of the rule language: terms (AND by juxtaposition), "quoted
// phrases", -negation, OR, parentheses, from:handle_or_id. Other operators are refused by the
// sandbox rather than silently mismatched.

import { messageOf, validate } from '../contract/params.js';
import { STREAM_RULE } from '../contract/stream.js';
import { errorMessage } from '../core/errors.js';

type Node = { t: 'term'; v: string; neg: boolean; from?: boolean } | { t: 'and' | 'or'; kids: Node[]; neg: boolean };

function tokenize(src: string): string[] {
  const out: string[] = [];
  const re = /\s*(-?"[^"]*"|\(|\)|-?\(|[^\s()"]+)/y;
  let pos = 0;
  for (;;) {
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) break;
    out.push(m[1]!);
    pos = re.lastIndex;
  }
  if (src.slice(pos).trim()) throw new Error('unbalanced quotes');
  return out;
}

function parse(src: string): Node {
  const toks = tokenize(src);
  let i = 0;
  const parseOr = (): Node => {
    const kids = [parseAnd()];
    while (toks[i] === 'OR') {
      i++;
      kids.push(parseAnd());
    }
    return kids.length === 1 ? kids[0]! : { t: 'or', kids, neg: false };
  };
  const parseAnd = (): Node => {
    const kids: Node[] = [];
    while (i < toks.length && toks[i] !== ')' && toks[i] !== 'OR') kids.push(parseAtom());
    if (kids.length === 0) throw new Error('empty group');
    return kids.length === 1 ? kids[0]! : { t: 'and', kids, neg: false };
  };
  const parseAtom = (): Node => {
    const tok = toks[i++]!;
    if (tok === '(' || tok === '-(') {
      const inner = parseOr();
      if (toks[i++] !== ')') throw new Error('unbalanced parentheses');
      return { ...inner, neg: tok === '-(' } as Node;
    }
    const neg = tok.startsWith('-') && tok.length > 1;
    let v = neg ? tok.slice(1) : tok;
    if (v.startsWith('"')) return { t: 'term', v: v.slice(1, -1).toLowerCase(), neg };
    if (/^from:/i.test(v)) return { t: 'term', v: v.slice(5).replace(/^@/, '').toLowerCase(), neg, from: true };
    if (/^[a-z_]+:/i.test(v)) throw new Error(`operator ${v.split(':')[0]}: is not supported by the sandbox`);
    v = v.toLowerCase();
    return { t: 'term', v, neg };
  };
  const n = parseOr();
  if (i !== toks.length) throw new Error('unbalanced parentheses');
  return n;
}

/** Why a rule value is refused, or undefined. */
export function ruleProblem(value: string): string | undefined {
  const invalid = validate(STREAM_RULE, { body: { value } });
  if (invalid) return messageOf(invalid, 'service');
  try {
    parse(value);
  } catch (e) {
    return errorMessage(e);
  }
  return undefined;
}

function wordMatch(text: string, term: string): boolean {
  if (/^[#@$]/.test(term)) return new RegExp(`(^|[^\\w])${escape(term)}(?![\\w])`, 'i').test(text);
  return new RegExp(`(^|[^\\w#@$])${escape(term)}(?![\\w])`, 'i').test(text);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether a post matches a rule value. `users` resolves from:handle to ids. */
export function matchRule(
  value: string,
  text: string,
  authorId: string,
  ctx?: { state: { userByName(n: string): { id: string } | undefined } },
): boolean {
  let n: Node;
  try {
    n = parse(value);
  } catch {
    return false;
  }
  const lower = text.toLowerCase();
  const ev = (node: Node): boolean => {
    let r: boolean;
    if (node.t === 'term') {
      if (node.from) r = node.v === authorId || ctx?.state.userByName(node.v)?.id === authorId;
      else r = node.v.includes(' ') ? lower.includes(node.v) : wordMatch(lower, node.v);
    } else if (node.t === 'and') r = node.kids.every(ev);
    else r = node.kids.some(ev);
    return node.neg ? !r : r;
  };
  return ev(n);
}
