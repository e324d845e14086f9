// The audiences file of `xctl audiences apply`: one zod schema is both the validator and the
// published JSON Schema (`apply --schema`), so the two cannot disagree. Errors name the file's
// line: the YAML is parsed with its source ranges, and each issue's path is looked up in it.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { UsageError, errnoCode, errorMessage } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { DO_NOT_REACH_TYPES, ID_TYPES, UNHASHED_TYPE, type IdType } from '../../contract/audience-users.js';
import { ADS_ID } from '../../contract/ids.js';
import { isOneOf } from '../../contract/guards.js';

const SYNC_TYPES = ID_TYPES.filter((t) => t !== UNHASHED_TYPE) as [IdType, ...IdType[]];
const accountId = z.string().regex(ADS_ID, { error: 'must be an ads account id (letters and digits)' });
const grant = z.union([
  accountId,
  z.strictObject({
    account: accountId,
    level: z.enum(['READ_ONLY', 'READ_WRITE']).default('READ_ONLY'),
  }),
]);

/** Keys an audience may set and `defaults` may give them all. */
const shared = {
  account: accountId.describe('ads account; default: --account, XCTL_ACCOUNT_ID, then the profile').optional(),
  type: z.enum(SYNC_TYPES).describe('what each value is (one value per row), as `--type`').optional(),
  columns: z
    .partialRecord(z.enum(SYNC_TYPES), z.string().min(1))
    .refine((c) => Object.keys(c).length === 1, {
      error: 'must name exactly one column: an audience keeps members of one identifier type',
    })
    .describe('TYPE: HEADER, as `--column` (one column)')
    .optional(),
  format: z.enum(['auto', 'csv', 'tsv', 'lines', 'jsonl']).optional(),
  hashed: z.boolean().describe('values are SHA-256 digests already').optional(),
  default_country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter country code such as US' })
    .optional(),
  timeout: z.number().int().min(1).max(86_400).describe('seconds a `command` source may run (default 600)').optional(),
  adopt: z
    .boolean()
    .describe('allow the first sync to an audience that already has members (as sync --adopt)')
    .optional(),
  max_removes: z
    .union([
      z.number().int().min(0),
      z.string().regex(/^(100|[1-9]?\d)%$/, { error: 'must be a number of members or a percentage up to 100%' }),
    ])
    .describe(
      'refuse a sync that would remove more members: a count, or a percentage of the audience ' +
        '("10%"; "100%" turns the guard off); as sync --max-removes (default without a terminal: 10%)',
    )
    .optional(),
  max_reject_rate: z
    .number()
    .min(0)
    .max(1)
    .describe('refuse a source whose share of rejected rows is higher (as --max-reject-rate)')
    .optional(),
};

const audience = z
  .strictObject({
    name: z.string().min(1).max(255).describe('matched by account and name (do-not-reach: the list of the account)'),
    kind: z.enum(['custom_audience', 'do_not_reach']).default('custom_audience'),
    description: z.string().max(255).optional(),
    source: z.string().min(1).describe('a file, relative to this file').optional(),
    command: z
      .string()
      .min(1)
      .describe("a shell command whose standard output is the source (run in this file's folder)")
      .optional(),
    share_with: z.array(grant).describe('accounts granted the audience; a grant removed here is revoked').optional(),
    ...shared,
  })
  .refine((a) => (a.source === undefined) !== (a.command === undefined), {
    error: 'give exactly one of source and command',
  })
  .refine((a) => !(a.type !== undefined && a.columns !== undefined), {
    error: 'type and columns are exclusive (as --type and --column)',
  })
  .refine((a) => a.kind !== 'do_not_reach' || a.share_with === undefined, {
    error: 'a do-not-reach list cannot be shared',
    path: ['share_with'],
  });

export const APPLY_FILE = z
  .strictObject({
    version: z.literal(1).optional(),
    defaults: z.strictObject({ ...shared, share_with: z.array(grant).optional() }).optional(),
    audiences: z.array(audience).min(1),
  })
  .describe('xctl audiences apply: the audiences of one or more ads accounts, kept equal to files');

/** Every key the file knows, for a did-you-mean on a mistyped one (`sorce:`). */
const FILE_KEYS = [
  'version',
  'defaults',
  'audiences',
  'name',
  'kind',
  'description',
  'source',
  'command',
  'share_with',
  ...Object.keys(shared),
];

export type ApplyFile = z.infer<typeof APPLY_FILE>;
type RawAudience = ApplyFile['audiences'][number];

/** One audience of the file with the defaults and the account resolved. */
export interface AudienceSpec {
  name: string;
  kind: 'custom_audience' | 'do_not_reach';
  account: string;
  description?: string;
  /** A path (resolved against the file's folder), or a shell command. */
  source: { file: string } | { command: string; timeoutMs: number; cwd: string };
  type?: IdType;
  columns: Array<{ type: IdType; header: string }>;
  format: 'auto' | 'csv' | 'tsv' | 'lines' | 'jsonl';
  hashed: boolean;
  defaultCountry?: string;
  shareWith: Array<{ account: string; level: 'READ_ONLY' | 'READ_WRITE' }>;
  adopt: boolean;
  /** max_removes as sync's --max-removes takes it: "500" or "10%". */
  maxRemoves?: string;
  maxRejectRate?: number;
  /** The line of the file that names it (for messages). */
  line: number;
}

/** The JSON Schema the file validates against (draft 2020-12), as `apply --schema` prints it. */
export function applyJsonSchema(): Record<string, unknown> {
  const s = z.toJSONSchema(APPLY_FILE, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return {
    ...s,
    title: 'xctl audiences apply file',
  };
}

/**
 * The document as plain values. An alias bomb (aliases of aliases, a billion nodes from a few
 * lines) or a nesting deeper than the stack is the file's fault: an input error, not a crash.
 */
function plainValue(doc: { toJS(o: { maxAliasCount: number }): unknown }, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    const why = e instanceof RangeError ? 'it nests too deeply' : errorMessage(e);
    throw new UsageError(`${file} cannot be read: ${why}`, { flag: '-f' });
  }
}

/** The audiences file's text (read once: what is trusted is what is parsed). */
export function readApplyFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${errnoCode(e) === 'ENOENT' ? 'no such file' : errorMessage(e)}`, {
      flag: '-f',
    });
  }
}

/** Reads, parses and validates an audiences file; every error names the file and its line. */
export async function loadApplyFile(
  file: string,
  fallbackAccount: () => Promise<string>,
  text = readApplyFile(file),
): Promise<AudienceSpec[]> {
  // yaml is CommonJS: in the bundle its dynamic import exposes only the default export.
  const yaml = (await import('yaml')) as typeof import('yaml') & {
    default?: typeof import('yaml');
  };
  const lib = yaml.default ?? yaml;
  const lines = new lib.LineCounter();
  const doc = lib.parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
  });
  const at = (offset: number) => `${file}:${lines.linePos(offset).line}`;
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new UsageError(`${at(e.pos[0])}: ${e.message.split('\n')[0]}`, { flag: '-f' });
  }
  const parsed = APPLY_FILE.safeParse(plainValue(doc, file));
  const lineOf = (p: ReadonlyArray<PropertyKey>) => {
    for (let n = p.length; n >= 0; n--) {
      const node = doc.getIn(p.slice(0, n) as unknown[], true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return lines.linePos(node.range[0]).line;
    }
    return 1;
  };
  if (!parsed.success) {
    const msgs = parsed.error.issues.slice(0, 5).map((i) => {
      // An unknown key is on its own line: name that one.
      const where = i.code === 'unrecognized_keys' ? [...i.path, i.keys[0]!] : i.path;
      // A mistyped key or value: the closest known one (`sorce:` -> source, `type: emial` -> email).
      const given = i.code === 'invalid_value' ? doc.getIn([...i.path]) : undefined;
      const near =
        i.code === 'unrecognized_keys'
          ? didYouMean(String(i.keys[0]), FILE_KEYS)
          : i.code === 'invalid_value' && typeof given === 'string'
            ? didYouMean(given, i.values.map(String))
            : '';
      return `${file}:${lineOf(where)}: ${pathText(i.path)}${i.message}${near}`;
    });
    throw new UsageError(msgs.join('\n'), {
      flag: '-f',
      hint: "the file's schema: `xctl audiences apply --schema`",
    });
  }
  const needsFallback = parsed.data.audiences.some((a) => (a.account ?? parsed.data.defaults?.account) === undefined);
  const fallback = needsFallback ? await fallbackAccount() : '';
  const specs = parsed.data.audiences.map((a, i) =>
    resolve(a, parsed.data.defaults ?? {}, {
      dir: path.dirname(path.resolve(file)),
      fallback,
      line: lineOf(['audiences', i]),
    }),
  );
  checkUnique(specs, file);
  return specs;
}

function pathText(p: ReadonlyArray<PropertyKey>): string {
  if (!p.length) return '';
  return `${p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('')}: `;
}

function resolve(
  a: RawAudience,
  d: NonNullable<ApplyFile['defaults']>,
  o: { dir: string; fallback: string; line: number },
): AudienceSpec {
  const pick = <K extends keyof typeof d>(k: K) => (a[k as keyof RawAudience] ?? d[k]) as (typeof d)[K];
  const columns = pick('columns');
  const maxRemoves = pick('max_removes');
  // An audience's own columns or type wins over both defaults.
  const type = a.columns ? undefined : (a.type ?? (columns ? undefined : d.type));
  const grants = (a.share_with ?? (a.kind === 'do_not_reach' ? [] : d.share_with) ?? []).map((g) =>
    typeof g === 'string' ? { account: g, level: 'READ_ONLY' as const } : { account: g.account, level: g.level },
  );
  const timeoutMs = (pick('timeout') ?? 600) * 1000;
  return {
    name: a.name,
    kind: a.kind,
    account: pick('account') ?? o.fallback,
    description: a.description,
    source:
      a.source !== undefined ? { file: path.resolve(o.dir, a.source) } : { command: a.command!, timeoutMs, cwd: o.dir },
    type,
    columns: !type && columns ? Object.entries(columns).map(([t, header]) => ({ type: t as IdType, header })) : [],
    format: pick('format') ?? 'auto',
    hashed: pick('hashed') ?? false,
    defaultCountry: pick('default_country')?.toUpperCase(),
    shareWith: grants,
    adopt: pick('adopt') ?? false,
    maxRemoves: maxRemoves === undefined ? undefined : String(maxRemoves),
    maxRejectRate: pick('max_reject_rate'),
    line: o.line,
  };
}

/** Audiences are matched by account and name: two entries for one audience would fight. */
function checkUnique(specs: AudienceSpec[], file: string): void {
  const seen = new Map<string, AudienceSpec>();
  for (const s of specs) {
    if (!s.type && !s.columns.length)
      throw new UsageError(`${file}:${s.line}: audience "${s.name}": give type or columns (here or in defaults)`, {
        flag: '-f',
      });
    if (s.kind === 'do_not_reach' && !isOneOf(DO_NOT_REACH_TYPES, s.type ?? s.columns[0]!.type)) {
      throw new UsageError(
        `${file}:${s.line}: do-not-reach "${s.name}": a do-not-reach list takes ${DO_NOT_REACH_TYPES.join(' or ')}`,
        { flag: '-f' },
      );
    }
    const key = s.kind === 'do_not_reach' ? `${s.account}\0dnr` : `${s.account}\0${s.name}`;
    const other = seen.get(key);
    if (other) {
      const what =
        s.kind === 'do_not_reach'
          ? 'a second do-not-reach list (an account has at most one)'
          : `audience "${s.name}" again (line ${other.line})`;
      throw new UsageError(`${file}:${s.line}: account ${s.account} has ${what}`, { flag: '-f' });
    }
    for (const g of s.shareWith)
      if (g.account === s.account)
        throw new UsageError(
          `${file}:${s.line}: audience "${s.name}" cannot be shared with its own account ${s.account}`,
          { flag: '-f' },
        );
    seen.set(key, s);
  }
}
