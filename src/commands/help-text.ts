// Text for help sections that commander does not wrap itself (addHelpText): wrapped to the
// terminal's width, 80 columns when unknown (piped, or no terminal).

let fixedWidth: number | undefined;

/** Help laid out at `width` whatever the terminal (the generated reference); undefined undoes it. */
export function fixHelpWidth(width: number | undefined): void {
  fixedWidth = width;
}

/** The width help is wrapped to. */
export function helpWidth(stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  if (fixedWidth) return fixedWidth;
  return stdout.isTTY && stdout.columns ? Math.max(40, Math.min(stdout.columns, 160)) : 80;
}

/** Words joined into lines of at most `width` columns, each starting with `indent`. */
export function wrapWords(words: readonly string[], indent: string, width = helpWidth()): string {
  const lines: string[] = [];
  let line = indent;
  for (const w of words) {
    if (line.length > indent.length && line.length + 1 + w.length > width) {
      lines.push(line);
      line = indent;
    }
    line += (line.length > indent.length ? ' ' : '') + w;
  }
  lines.push(line);
  return lines.join('\n');
}

/** A two-column list (`term  description`), the description wrapped under itself. */
export function termList(rows: Array<[string, string]>, indent = '  ', width = helpWidth()): string {
  const w = Math.max(...rows.map(([t]) => t.length));
  const pad = indent + ' '.repeat(w + 2);
  return rows
    .map(([t, d]) => {
      const body = wrapWords(d.split(/\s+/), pad, Math.max(width, pad.length + 20)).slice(pad.length);
      return `${indent}${t.padEnd(w)}  ${body}`;
    })
    .join('\n');
}

/**
 * Wraps each line longer than `width` at spaces, continuation lines indented under the line's
 * text (two more than its own indent; under the command for "Usage:"). Commander wraps what it
 * lays out itself; this catches the rest (usage lines, addHelpText paragraphs). A word longer
 * than the line stays whole.
 */
export function wrapLongLines(text: string, width = helpWidth()): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= width) return line;
      const lead = /^\s*/.exec(line)![0];
      const cont = line.startsWith('Usage: ') ? ' '.repeat(7) : lead + '  ';
      const words = line.slice(lead.length).split(' ');
      const out: string[] = [];
      let cur = lead;
      for (const w of words) {
        if (cur.trim() !== '' && cur.length + 1 + w.length > width) {
          out.push(cur);
          cur = cont;
        }
        cur += (cur.trim() === '' ? '' : ' ') + w;
      }
      out.push(cur);
      return out.join('\n');
    })
    .join('\n');
}
