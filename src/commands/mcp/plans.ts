// Plans: a write tool called without `plan_id` only plans (the verb's --dry-run, `sync --plan
// --out`, `upload --dry-run --out`, `apply --plan`) and returns an id; called with that id it
// executes exactly that plan. A generic write and an upload run behind a transport that lets
// through only requests the plan showed (each planned request once, an upload's bodies by
// digest), so a tool never sends what --dry-run would not have shown; a sync is applied from its
// saved plan, which sync itself refuses when the input or the audience's snapshot changed since.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { isRecord } from '../../contract/guards.js';
import { UsageError } from '../../core/errors.js';
import { parseJson, stringifyJson } from '../../core/json.js';
import type { Transport, TransportRequest, TransportResponse } from '../../core/transport.js';

export type PlanKind = 'dry-run' | 'upload' | 'sync' | 'apply';

export interface Plan {
  id: string;
  tool: string;
  kind: PlanKind;
  /** The arguments it was made with: an execution naming other ones is refused. */
  args: Record<string, unknown>;
  /** The verb's command line, without the planning flag. */
  argv: string[];
  /** dry-run: the requests shown, canonical; upload: the bodies' SHA-256 digests. */
  allowed: string[];
  /** sync: the saved plan file. */
  file?: string;
  /** apply: the plan's printed text, compared with a fresh plan before executing. */
  shown?: string;
}

/** The plans of one server: in memory, their files in a private folder removed at exit. */
export class PlanBook {
  private plans = new Map<string, Plan>();
  constructor(readonly dir: string) {}

  static create(parent: string): PlanBook {
    return new PlanBook(fs.mkdtempSync(path.join(parent, 'xctl-mcp-plans-')));
  }

  newId(): string {
    return crypto.randomBytes(9).toString('base64url');
  }

  fileFor(id: string, ext: string): string {
    return path.join(this.dir, `${id}.${ext}`);
  }

  add(p: Plan): void {
    this.plans.set(p.id, p);
  }

  /** The plan `id` names, for `tool` and these arguments (none but plan_id, or the planned ones). */
  take(id: string, tool: string, args: Record<string, unknown>): Plan {
    const p = this.plans.get(id);
    if (!p)
      throw new UsageError(
        `plan_id ${id} names no plan of this server (plans last until executed or the server stops)`,
        {
          flag: 'plan_id',
          hint: `call ${tool} without plan_id to make one`,
        },
      );
    if (p.tool !== tool) throw new UsageError(`plan_id ${id} is a plan of ${p.tool}, not ${tool}`, { flag: 'plan_id' });
    const { plan_id: _, ...rest } = args;
    if (Object.keys(rest).length && stringifyJson(rest) !== stringifyJson(p.args))
      throw new UsageError(`the arguments differ from those plan ${id} was made with: give plan_id alone`, {
        flag: 'plan_id',
      });
    return p;
  }

  /** An executed plan is spent; an interrupted one stays, to resume. */
  spend(id: string): void {
    const p = this.plans.get(id);
    this.plans.delete(id);
    if (p?.file) fs.rmSync(p.file, { force: true });
  }

  close(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A request reduced to what decides what it does: method, URL path, parameters, JSON body. */
function canonical(method: string, url: URL, params: Array<[string, string]>, json: unknown): string {
  const all = [...url.searchParams.entries(), ...params].sort((a, b) =>
    a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1,
  );
  return stringifyJson({
    method: method.toUpperCase(),
    url: url.origin + url.pathname,
    params: all,
    json: json ?? null,
  });
}

/** The canonical form of one `--dry-run` line ({"dry_run":true,"method","url","params"|"json"}). */
export function plannedRequest(line: string): string | undefined {
  const d = parseJson(line);
  if (!isRecord(d) || d.dry_run !== true || typeof d.method !== 'string' || typeof d.url !== 'string') return undefined;
  const params = isRecord(d.params) ? Object.entries(d.params).map(([k, v]): [string, string] => [k, String(v)]) : [];
  return canonical(d.method, new URL(d.url), params, d.json);
}

function bodyText(body: TransportRequest['body']): string {
  return body === undefined ? '' : typeof body === 'string' ? body : body.toString('utf8');
}

/** The canonical form of a request about to be sent. */
export function sentRequest(req: TransportRequest): string {
  const type = req.headers['content-type'] ?? '';
  const text = bodyText(req.body);
  const form = type.startsWith('application/x-www-form-urlencoded') ? [...new URLSearchParams(text).entries()] : [];
  const json = type.startsWith('application/json') && text ? parseJson(text) : undefined;
  return canonical(req.method, req.url, form, json);
}

export const bodyDigest = (body: TransportRequest['body']) =>
  crypto
    .createHash('sha256')
    .update(body ?? '')
    .digest('hex');

/**
 * The wire, letting through only the writes the plan allows (`match` reduces a request to the
 * form of the plan's entries), and reads. The same request again is allowed: the client's own retry of a request the
 * plan showed sends nothing new. A request beyond the plan is never sent: the verb fails with a
 * UsageError naming it.
 */
export function guardedTransport(
  inner: Transport,
  allowed: string[],
  match: (req: TransportRequest) => string,
): Transport {
  const ok = new Set(allowed);
  return {
    send(req: TransportRequest): Promise<TransportResponse> {
      // Reads change nothing (a verb may look something up before its write: a funding
      // instrument's currency, an existing name); every write must be one the plan showed.
      if (req.method !== 'GET' && req.method !== 'HEAD' && !ok.has(match(req)))
        return Promise.reject(
          new UsageError(
            `refused: ${req.method} ${req.url.pathname} is not in the plan (nothing beyond the plan is sent)`,
          ),
        );
      return inner.send(req);
    },
  };
}

/**
 * The digests of the bodies an upload's dry run wrote (one body per line), read as a stream (an
 * upload's bodies are the whole file, hashed); the file is removed: the digests are the plan.
 */
export async function plannedBodies(file: string): Promise<string[]> {
  const out: string[] = [];
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  try {
    for await (const line of lines) if (line.length > 0) out.push(bodyDigest(line));
  } finally {
    lines.close();
    fs.rmSync(file, { force: true });
  }
  return out;
}
