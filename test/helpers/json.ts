// Types of what tests read back as JSON: records the CLI printed with --json (or the sandbox
// stored), and the ads API's reply bodies. Fields are `unknown` until a test names the ones it
// uses as more than values to compare (`t.json<Card>(...)` with `interface Card extends Row`).

/** One record: an id and fields by name (the sandbox's Entity shape). */
export type Row = Record<string, unknown> & { id: string };

/** An ads error (docs/contract.md, ads section 7). */
export interface AdsErrorItem {
  code: string;
  message: string;
  parameter?: string;
}

/** A v2 reply: data, or a problem (RFC 7807 style, as docs/contract.md, notes shows the v2 errors). */
export interface V2Reply<D = unknown> {
  data: D;
  errors?: Array<{ message?: string; code?: string | number; parameter?: string }>;
  type?: string;
  title?: string;
  detail?: string;
  parameter?: string;
}

/** The ads API's reply (docs/contract.md, ads 2.1 envelope; errors per section 7). */
export interface AdsReply<D = unknown> {
  data: D;
  data_type?: string;
  request: { params: Record<string, unknown> };
  next_cursor?: string | null;
  total_count?: number;
  errors?: AdsErrorItem[];
  operation_errors?: Array<AdsErrorItem[] | null>;
}

/** GET /_sandbox/state: entity counts by collection, the clock. */
export interface SandboxStateBody {
  counts: Record<string, number | undefined>;
  clock: { mode: string; now: string };
}
