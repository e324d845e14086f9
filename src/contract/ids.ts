// Identifier shapes the service uses (docs/contract.md, notes): 64-bit integers written as strings of
// digits (users, posts, webhooks, subscriptions), and the ads API's short alphanumeric ids.

/** A 64-bit integer id as a string: 1-19 digits (ids exceed 2^53, so never a number). */
export const NUMERIC_ID = /^\d{1,19}$/;

/** NUMERIC_ID in words: every message about an id's shape says it this way. */
export const NUMERIC_ID_RULE = '1-19 digits';

/** `<subject> must be 1-19 digits (got "x")`: the one wording, CLI (a flag) and sandbox (a field). */
export function idProblem(subject: string, value: unknown): string {
  return `${subject} must be ${NUMERIC_ID_RULE} (got ${JSON.stringify(value ?? '')})`;
}

/** An ads account, custom audience or do-not-reach list id: letters and digits. */
export const ADS_ID = /^[A-Za-z0-9]{1,32}$/;

export function isNumericId(v: unknown): v is string {
  return typeof v === 'string' && NUMERIC_ID.test(v);
}
