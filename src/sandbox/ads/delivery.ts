// When a line item delivers, on the sandbox clock: the periods it was ACTIVE (and not deleted),
// kept on the stored record as `_delivery` [from, to|null] pairs. The simulated impressions of
// the stats endpoints come from these periods, so pausing a line item stops its numbers.
type Rec = Record<string, unknown>;
type Period = [number, number | null];

/**
 * Opens or closes the current delivery period after a change of status or deletion of the line
 * item or of its campaign (a paused campaign's line items do not deliver).
 */
export function trackDelivery(li: Rec, nowMs: number, campaign: Rec | undefined): void {
  const periods = (li._delivery as Period[] | undefined) ?? [];
  const open = periods.length > 0 && periods[periods.length - 1]![1] === null;
  const live = (e: Rec | undefined) => !!e && e.entity_status === 'ACTIVE' && e.deleted !== true;
  const on = live(li) && live(campaign);
  if (on && !open) periods.push([nowMs, null]);
  if (!on && open) periods[periods.length - 1]![1] = nowMs;
  li._delivery = periods;
}

/**
 * Milliseconds of [from, to) during which the line item delivered: ACTIVE, inside its flight
 * (start_time to end_time) and not after `nowMs` (the future has no impressions yet).
 */
export function deliveringMs(li: Rec, from: number, to: number, nowMs: number): number {
  const start = typeof li.start_time === 'string' ? Date.parse(li.start_time) : -Infinity;
  const end = typeof li.end_time === 'string' ? Date.parse(li.end_time) : Infinity;
  let total = 0;
  for (const [a, b] of (li._delivery as Period[] | undefined) ?? []) {
    const lo = Math.max(a, from, start);
    const hi = Math.min(b ?? nowMs, to, end, nowMs);
    if (hi > lo) total += hi - lo;
  }
  return total;
}

/** Every span [a, b) during which the line item delivered (for active entities). */
export function deliverySpans(li: Rec, nowMs: number): Array<[number, number]> {
  const start = typeof li.start_time === 'string' ? Date.parse(li.start_time) : -Infinity;
  const end = typeof li.end_time === 'string' ? Date.parse(li.end_time) : Infinity;
  const out: Array<[number, number]> = [];
  for (const [a, b] of (li._delivery as Period[] | undefined) ?? []) {
    const lo = Math.max(a, start);
    const hi = Math.min(b ?? nowMs, end, nowMs);
    if (hi > lo) out.push([lo, hi]);
  }
  return out;
}
