// `--daily-budget 30.00`, `--bid 1.50`, `--total-budget`: a twin in the account's currency for
// every `*_local_micro` flag, converted to micros exactly (decimal strings, BigInt; no floating
// point), refusing more decimals than the currency has (JPY none, USD two).
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import type { OperationDef, ParamDef } from '../../ads/resource-types.js';
import type { OptionDecl } from '../define.js';

/** daily_budget_amount_local_micro -> daily_budget; bid_amount_local_micro -> bid. */
export function moneyTwin(d: ParamDef): string | undefined {
  if (!/_local_micro$/.test(d.name)) return undefined;
  return d.name.replace(/(_amount)?_local_micro$/, '');
}

const flagOf = (twin: string) => `--${twin.replace(/_/g, '-')}`;
const attrOf = (twin: string) => twin.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The currency twins of an operation's micro flags (unless one of `taken` has that name). */
export function moneyOptions(op: OperationDef, taken: readonly OptionDecl[]): OptionDecl[] {
  const longs = new Set(taken.map((o) => ('flags' in o ? o.flags : o[0]).split(' ')[0]));
  const out: OptionDecl[] = [];
  for (const d of op.params) {
    const twin = moneyTwin(d);
    if (!twin || longs.has(flagOf(twin))) continue;
    out.push([`${flagOf(twin)} <amount>`, `${d.flag} in the account's currency, e.g. 30.00 (converted exactly)`]);
  }
  return out;
}

/** The twins given on the command line, by spec name of their micro parameter. */
export function moneyFromOpts(op: Pick<OperationDef, 'params'>, opts: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of op.params) {
    const twin = moneyTwin(d);
    const v = twin ? opts[attrOf(twin)] : undefined;
    if (typeof v === 'string') out[d.name] = v;
  }
  return out;
}

const MAX_UNIT_DIGITS = 10;

/** "30.5" with 2 decimals -> "30500000": exact, or a usage error naming the flag. */
export function toMicros(amount: string, decimals: number, currency: string, flag: string): string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) throw new UsageError(`${flag} takes an amount such as 30 or 30.00 (got "${amount}")`, { flag });
  // The micros the API takes have at most 16 digits: 10 before the decimal point.
  if (m[1]!.replace(/^0+(?=\d)/, '').length > MAX_UNIT_DIGITS)
    throw new UsageError(`${flag} ${amount} is too large: at most ${'9'.repeat(MAX_UNIT_DIGITS)} ${currency}`, {
      flag,
    });
  const frac = m[2] ?? '';
  if (frac.length > decimals) {
    throw new UsageError(
      `${flag} ${amount}: ${currency} has ${decimals === 0 ? 'no decimals' : `${decimals} decimal${decimals > 1 ? 's' : ''}`}`,
      { flag },
    );
  }
  return String(BigInt(m[1]!) * 1_000_000n + BigInt(frac.padEnd(6, '0')));
}

/** Decimals of an ISO 4217 currency (JPY 0, USD 2, KWD 3). */
export function currencyDecimals(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * Puts the twins into `raw` as micros. The currency is the funding instrument's (the one named by
 * --funding-instrument-id, else the account's first), read only when a twin is given.
 */
export async function applyMoney(
  ctx: Context,
  op: OperationDef,
  money: Record<string, string>,
  raw: Record<string, string>,
): Promise<void> {
  const names = Object.keys(money);
  if (!names.length) return;
  for (const n of names) {
    const d = op.params.find((x) => x.name === n)!;
    if (raw[n] !== undefined)
      throw new UsageError(`${flagOf(moneyTwin(d)!)} and ${d.flag} say the same: give one`, { flag: d.flag });
  }
  const account = encodeURIComponent(await ctx.accountId());
  const fi = raw.funding_instrument_id;
  const http = await ctx.http();
  const res = await http.request<{ data?: { currency?: unknown } | Array<{ currency?: unknown }> }>({
    method: 'GET',
    host: 'ads',
    auth: 'user',
    path: fi
      ? `/12/accounts/${account}/funding_instruments/${encodeURIComponent(fi)}`
      : `/12/accounts/${account}/funding_instruments`,
    ...(fi ? {} : { query: { count: 1 } }),
  });
  const data = Array.isArray(res.data.data) ? res.data.data[0] : res.data.data;
  const currency = typeof data?.currency === 'string' && /^[A-Z]{3}$/.test(data.currency) ? data.currency : undefined;
  if (!currency)
    throw new UsageError("cannot tell the account's currency (no funding instrument): give the amount in micros", {
      flag: '--daily-budget-amount-local-micro',
    });
  const decimals = currencyDecimals(currency);
  for (const n of names) {
    const d = op.params.find((x) => x.name === n)!;
    raw[n] = toMicros(money[n]!, decimals, currency, flagOf(moneyTwin(d)!));
  }
}
