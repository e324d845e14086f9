// The rules a user gives `stream rules add` (arguments and a rules file), and the checks before sending.
import { UsageError, errorMessage } from '../../../core/errors.js';
import { messageOf, validate } from '../../../contract/params.js';
import { STREAM_ENDPOINTS as E, STREAM_RULE } from '../../../contract/stream.js';
import { checkInput } from '../../../core/check-input.js';
import { isRecord } from '../../../contract/guards.js';

export interface Rule {
  value: string;
  tag?: string;
}

/**
 * A rules file: a JSON array of {value, tag} (or of strings), JSON lines, or one rule value per
 * line (blank lines and lines starting with # skipped).
 */
export function parseRulesFile(text: string, flag = '--file'): Rule[] {
  const t = text.trim();
  const fromObj = (x: unknown, where: string): Rule => {
    if (typeof x === 'string') return { value: x };
    if (isRecord(x) && typeof x.value === 'string') {
      const tag = x.tag;
      if (tag !== undefined && typeof tag !== 'string')
        throw new UsageError(`${flag}: ${where}: tag must be a string`, { flag });
      return { value: x.value, ...(tag !== undefined ? { tag } : {}) };
    }
    throw new UsageError(`${flag}: ${where}: expected a rule value or {"value","tag"}`, { flag });
  };
  if (t.startsWith('[')) {
    let arr: unknown;
    try {
      arr = JSON.parse(t);
    } catch (e) {
      throw new UsageError(`${flag}: not valid JSON: ${errorMessage(e)}`, { flag });
    }
    // JSON text that starts with [ is a list.
    const items: unknown[] = Array.isArray(arr) ? arr : [];
    return items.map((x, i) => fromObj(x, `item ${i + 1}`));
  }
  const out: Rule[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith('#')) return;
    if (l.startsWith('{')) {
      let o: unknown;
      try {
        o = JSON.parse(l);
      } catch (e) {
        throw new UsageError(`${flag}: line ${i + 1}: not valid JSON: ${errorMessage(e)}`, { flag });
      }
      out.push(fromObj(o, `line ${i + 1}`));
    } else out.push({ value: l });
  });
  return out;
}

/** The contract's checks of an add (POST .../stream/rules), each rule named by its place. */
export function checkRules(rules: Rule[]): void {
  checkInput(E.changeRules, { body: { add: rules } }, { add: 'pass rule values or --file' });
  rules.forEach((r, i) => {
    const invalid = validate(STREAM_RULE, { body: r });
    if (invalid)
      throw new UsageError(`rule ${i + 1}: ${messageOf(invalid, 'service')}`, {
        flag: invalid.name === 'tag' ? '--tag' : '<value>',
      });
  });
}
