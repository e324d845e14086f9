// A record as the output prints it, and a field of it by dotted path (`user.name`). Shared by
// output.ts and the table renderer it loads on demand (output-table.ts).
export type Rec = Record<string, unknown>;

/** A field by name, else by dotted path into nested objects. */
export function getPath(rec: Rec, path: string): unknown {
  if (path in rec) return rec[path];
  let cur: unknown = rec;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Rec)[part];
  }
  return cur;
}

/**
 * A column's value in a table, tsv or csv: `id` is the exact `id_str` where a record has both
 * (the service's pair for 64-bit ids; the number is exact too, but a string is what a
 * spreadsheet or a shell keeps whole).
 */
export function cellValue(rec: Rec, col: string): unknown {
  return col === 'id' && typeof rec.id_str === 'string' && rec.id !== undefined ? rec.id_str : getPath(rec, col);
}

/** Micros on the wire and in json; money in a table ("49.50 USD"). */
export function isMoneyColumn(name: string): boolean {
  return /_local_micro$|_micros?$/.test(name);
}

/**
 * A column's table header: a money column's amount without the wire unit (daily_budget for
 * daily_budget_amount_local_micro); `--fields` takes it too (fieldOfHeader).
 */
export function headerName(col: string): string {
  return isMoneyColumn(col) ? col.replace(/(_amount)?_local_micro$|_micros?$/, '') : col;
}

/** The field a `--fields` name stands for: itself, or the field a table shows under that header. */
export function fieldOfHeader(name: string, known: Iterable<string>): string {
  const all = [...known];
  if (all.includes(name)) return name;
  return all.find((k) => k !== name && headerName(k) === name) ?? name;
}
