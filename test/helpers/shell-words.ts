// The words of a help example's command line, as a shell splits them (the examples hold no operators).
/** Shell words of a plain command line: single and double quotes, backslash escapes; no operators. */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const j = line.indexOf("'", i + 1);
      if (j < 0) throw new Error(`unclosed quote in ${line}`);
      cur += line.slice(i + 1, j);
      has = true;
      i = j;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) cur += line[j] === '\\' ? line[++j] : line[j];
      has = true;
      i = j;
    } else if (ch === '\\') {
      cur += line[++i] ?? '';
      has = true;
    } else if (/\s/.test(ch)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      if ('|<>;&$`'.includes(ch)) throw new Error(`shell operator ${ch} in example: ${line}`);
      cur += ch;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}
