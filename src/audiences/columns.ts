// Header detection as people write headers: a header cell is normalised (case, spaces, -, _,
// punctuation, a BOM) and matched against the common names of each identifier type; columns
// nobody mapped are sampled, and one whose values look like emails or phone numbers stops the
// run (a CRM export's "Email Address" silently ignored is a whole upload lost). Plain functions:
// upload, sync, hash, inspect and apply all decide columns through them.
import { ID_TYPES, type IdType } from '../contract/audience-users.js';
import { EMAIL_RE } from './normalize.js';

/** A header cell reduced to lowercase letters and digits: "E-mail Address" -> "emailaddress". */
export function normalizeHeader(cell: string): string {
  return cell
    .replace(/^\uFEFF/, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Words before a name that do not change what it holds ("Primary Email", "Work Phone"). */
const QUALIFIERS = [
  'primary',
  'secondary',
  'other',
  'main',
  'work',
  'business',
  'personal',
  'private',
  'home',
  'office',
  'contact',
  'customer',
  'user',
  'member',
  'subscriber',
  'lead',
  'default',
  'preferred',
];

/** Normalised names of each type, without qualifiers. */
const NAMES: Record<IdType, string[]> = {
  email: ['email', 'emails', 'emailaddress', 'emailaddr', 'mail', 'mailaddress', 'emailid'],
  phone_number: [
    'phone',
    'phones',
    'phonenumber',
    'phoneno',
    'phonenum',
    'mobile',
    'mobilephone',
    'mobilenumber',
    'mobileno',
    'mobilephonenumber',
    'cell',
    'cellphone',
    'cellnumber',
    'cellphonenumber',
    'telephone',
    'telephonenumber',
    'tel',
    'telno',
    'msisdn',
  ],
  handle: [
    'handle',
    'twitterhandle',
    'xhandle',
    'username',
    'twitterusername',
    'xusername',
    'screenname',
    'twitterscreenname',
    'xscreenname',
    'twitter',
  ],
  twitter_id: ['twitterid', 'twitteruserid', 'xid', 'xuserid', 'userid', 'serviceid', 'twitteridstr'],
  device_id: [
    'deviceid',
    'idfa',
    'aaid',
    'gaid',
    'adid',
    'maid',
    'ifa',
    'advertisingid',
    'adsid',
    'mobileadid',
    'mobileadvertisingid',
    'googleadvertisingid',
    'advertiserid',
  ],
  partner_user_id: ['partneruserid', 'partnerid'],
};

const BY_NAME = new Map<string, IdType>();
for (const t of ID_TYPES) {
  BY_NAME.set(normalizeHeader(t), t);
  for (const n of NAMES[t]) BY_NAME.set(n, t);
}

/** The identifier type a header cell names, if any ("E-mail Address" -> email, "@handle" -> handle). */
export function headerType(cell: string): IdType | undefined {
  const n = normalizeHeader(cell);
  const direct = BY_NAME.get(n);
  if (direct) return direct;
  // Leading qualifiers: "Primary E-mail" -> "email"; "Work Mobile Phone" -> "mobilephone".
  const words = cell
    .replace(/^\uFEFF/, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  let i = 0;
  while (i < words.length - 1 && QUALIFIERS.includes(words[i]!)) i++;
  return i > 0 ? BY_NAME.get(words.slice(i).join('')) : undefined;
}

/** Whether two header spellings name the same column ("E-mail" and "e_mail"). */
export function sameHeader(a: string, b: string): boolean {
  return (
    a.trim().toLowerCase() === b.trim().toLowerCase() ||
    (normalizeHeader(a) !== '' && normalizeHeader(a) === normalizeHeader(b))
  );
}

/**
 * What a value looks like: an email address, or a phone number as people write them (a leading
 * + or separators between digit groups, 7 to 15 digits). Plain digit strings are not taken for
 * phone numbers (they are more often ids), nor ISO dates.
 */
export function valueKind(v: string): 'email' | 'phone_number' | undefined {
  const s = v.trim();
  if (s.includes('@')) return EMAIL_RE.test(s.toLowerCase()) ? 'email' : undefined;
  if (!/^\+?[\d\s().-]+$/.test(s) || /^\d{4}-\d{2}-\d{2}$/.test(s)) return undefined;
  const digits = s.replace(/\D/g, '').length;
  if (digits < 7 || digits > 15) return undefined;
  if (s.startsWith('+')) return 'phone_number';
  return /\d[\s().-]+\d/.test(s) && !/\./.test(s) ? 'phone_number' : undefined;
}

export interface UnmappedColumn {
  name: string;
  index: number;
  type: 'email' | 'phone_number';
  hits: number;
  sampled: number;
}

/**
 * Columns that no type was mapped to (and not ignored) whose sampled values are mostly (at least
 * half of the non-empty ones) emails or phone numbers.
 */
export function unmappedIdentifiers(
  cells: string[],
  used: Set<number>,
  ignored: Set<number>,
  rows: string[][],
): UnmappedColumn[] {
  const found: UnmappedColumn[] = [];
  cells.forEach((name, index) => {
    if (used.has(index) || ignored.has(index)) return;
    const counts = { email: 0, phone_number: 0 };
    let sampled = 0;
    for (const r of rows) {
      const v = r[index];
      if (v === undefined || v.trim() === '') continue;
      sampled++;
      const k = valueKind(v);
      if (k) counts[k]++;
    }
    const type = counts.email >= counts.phone_number ? 'email' : 'phone_number';
    if (sampled > 0 && counts[type] * 2 >= sampled) found.push({ name, index, type, hits: counts[type], sampled });
  });
  return found;
}

/** Shell-quoted for a hint: `--column email="Work Contact"`. */
export function shellWord(s: string): string {
  return /^[\w@.+-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * Whether a line (inside a quoted field) reads as a row of its own, split at the delimiter: a
 * column mapped to email or phone_number holds a value that looks like one; or the line has
 * the header's `width` cells and every mapped one is empty or looks like its type. Notes that
 * span lines seldom do; rows a stray quote swallowed do.
 */
export function rowLikeTest(
  columns: Array<{ type: IdType; index?: number }>,
  delimiter: string,
  width?: number,
): ((line: string) => boolean) | undefined {
  const mapped = columns.filter((c) => c.index !== undefined);
  if (!mapped.length) return undefined;
  const kindOf = (parts: string[], c: { index?: number }) => valueKind((parts[c.index!] ?? '').replace(/^"|"$/g, ''));
  return (line) => {
    const parts = line.split(delimiter);
    if (mapped.some((c) => (c.type === 'email' || c.type === 'phone_number') && kindOf(parts, c) === c.type))
      return true;
    return (
      parts.length === width &&
      width > 1 &&
      mapped.every((c) => parts[c.index!]!.trim() === '' || kindOf(parts, c) === c.type)
    );
  };
}
