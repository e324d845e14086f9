// No function over 100 lines (STYLE.md habit 10, issue 27 item 6): every function declaration,
// method, accessor, constructor, arrow function and function expression under src/, measured
// with the TypeScript compiler from its first line to its last.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const MAX_LINES = 100;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  return '(anonymous)';
}

/** `file:line name (n lines)` for every function of `file` longer than `max` lines. */
export function longFunctions(file: string, max = MAX_LINES): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push(`${relative(ROOT, file)}:${start + 1} ${nameOf(node, sf)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('function length', () => {
  it(`no function under src/ is over ${MAX_LINES} lines`, () => {
    const long = sourceFiles(join(ROOT, 'src')).flatMap((f) => longFunctions(f));
    expect(long).toEqual([]);
  });
});
