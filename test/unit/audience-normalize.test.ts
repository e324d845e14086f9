// Every normalization rule of docs/contract.md, notes "Audience identifier normalization", the
// published hash vector, and how digests and partner ids are treated.
import { describe, expect, it } from 'vitest';
import {
  asciiJsonString,
  normalizeDeviceId,
  normalizeEmail,
  normalizeHandle,
  normalizePartnerUserId,
  normalizePhone,
  normalizeTwitterId,
  looksHashed,
  normalize,
  prepare,
  sha256Hex,
} from '../../src/audiences/normalize.js';
import { canonicalType, type IdType } from '../../src/contract/audience-users.js';

const val = (n: { value: string } | { reason: string }) => ('value' in n ? n.value : `REJECT: ${n.reason}`);

describe('hash', () => {
  it('matches the published vector sha256("adsapi")', () => {
    expect(sha256Hex('adsapi')).toBe('49e0be2aeccfb51a8dee4c945c8a70a9ac500cf6f5cb08112575f74db9b1470d');
  });
});

describe('email: trim, lowercase', () => {
  it('normalizes', () => {
    expect(val(normalizeEmail('  John.Doe+ads@Example.COM \t'))).toBe('john.doe+ads@example.com');
  });
  it('rejects what is not an address', () => {
    for (const bad of ['', 'john', 'john@', '@example.com', 'jo hn@example.com'])
      expect(val(normalizeEmail(bad))).toMatch(/^REJECT/);
  });
});

describe('handle: trim, drop a leading @, lowercase', () => {
  it('normalizes', () => {
    expect(val(normalizeHandle(' @XDevelopers '))).toBe('xdevelopers');
    expect(val(normalizeHandle('jack_1'))).toBe('jack_1');
  });
  it('rejects invalid handles', () => {
    for (const bad of ['@', 'has space', 'a'.repeat(16), 'dash-ed'])
      expect(val(normalizeHandle(bad))).toMatch(/^REJECT/);
  });
});

describe('twitter_id (service_id): trim, digits only, drop leading zeros, kept as a string', () => {
  it('normalizes', () => {
    expect(val(normalizeTwitterId(' 000783214 '))).toBe('783214');
    // beyond 2^53: never parsed as a number
    expect(val(normalizeTwitterId('1234567890123456789012'))).toBe('1234567890123456789012');
  });
  it('rejects non-digits and zero', () => {
    for (const bad of ['12a4', '1.5e3', '0000', '-12']) expect(val(normalizeTwitterId(bad))).toMatch(/^REJECT/);
  });
  it('service_id is an alias of twitter_id', () => {
    expect(canonicalType('service_id')).toBe('twitter_id');
    expect(canonicalType('EMAIL')).toBe('email');
    expect(canonicalType('nope')).toBeUndefined();
  });
});

describe('phone_number: E.164 without the plus', () => {
  it('keeps international numbers with + or 00', () => {
    expect(val(normalizePhone('+1 (415) 555-2671'))).toBe('14155552671');
    expect(val(normalizePhone('0044 20 7946 0958'))).toBe('442079460958');
    expect(val(normalizePhone('+44 (0)20 7946 0958'))).toBe('442079460958');
  });
  it('needs --default-country for national numbers', () => {
    expect(val(normalizePhone('(415) 555-2671', 'US'))).toBe('14155552671');
    expect(val(normalizePhone('020 7946 0958', 'GB'))).toBe('442079460958');
    expect(val(normalizePhone('020 7946 0958'))).toMatch(/REJECT.*default-country/);
  });
  it('reads digits that already start with the country code', () => {
    expect(val(normalizePhone('14155552671'))).toBe('14155552671');
  });
  it('rejects what is not a phone number', () => {
    for (const bad of ['call me', '123', '+1 555']) expect(val(normalizePhone(bad, 'US'))).toMatch(/^REJECT/);
  });
});

describe('device_id: trim, lowercase, dashes kept', () => {
  it('normalizes an IDFA', () => {
    expect(val(normalizeDeviceId(' 4B61639E-47CC-4056-A16A-C8217E029462 '))).toBe(
      '4b61639e-47cc-4056-a16a-c8217e029462',
    );
  });
  it('rejects empty and spaced values', () => {
    expect(val(normalizeDeviceId('  '))).toMatch(/^REJECT/);
    expect(val(normalizeDeviceId('ab cd'))).toMatch(/^REJECT/);
  });
});

describe('partner_user_id: trim, never hashed', () => {
  it('is trimmed and passed as is', () => {
    expect(val(normalizePartnerUserId('  CRM-00042 '))).toBe('CRM-00042');
    expect(prepare('partner_user_id', ' CRM-00042 ', false)).toEqual({ value: 'CRM-00042' });
    expect(prepare('partner_user_id', ' CRM-00042 ', true)).toEqual({ value: 'CRM-00042' });
  });
  it('is JSON-encoded as pure ASCII (byte length equals length)', () => {
    expect(asciiJsonString('Zoë "q"')).toBe('"Zo\\u00eb \\"q\\""');
  });
});

describe('prepare: normalize then hash, never hash twice', () => {
  // The published vector as a literal: a sha256Hex that throws must fail a test, not the file's
  // collection (issue 43: Stryker counted that as a survivor).
  const digest = '49e0be2aeccfb51a8dee4c945c8a70a9ac500cf6f5cb08112575f74db9b1470d';
  it('hashes the normalized value', () => {
    expect(prepare('email', ' AdsApi@Example.com ', false)).toEqual({ value: sha256Hex('adsapi@example.com') });
    expect(prepare('handle', '@AdsApi', false)).toEqual({ value: digest });
  });
  it('flags a digest-looking value without --hashed', () => {
    expect(prepare('email', digest.toUpperCase(), false)).toEqual({ digest: true });
    // white space around it is trimmed first (untrimmed, it was hashed as a bad email)
    expect(prepare('email', ` ${digest}\t`, false)).toEqual({ digest: true });
  });
  it('passes digests through with --hashed, lowercased and checked', () => {
    expect(prepare('email', ` ${digest.toUpperCase()} `, true)).toEqual({ value: digest });
    expect(prepare('email', 'someone@example.com', true)).toHaveProperty('reason');
    expect(prepare('email', digest.slice(1), true)).toHaveProperty('reason');
  });
  it('passes rejection reasons on', () => {
    expect(prepare('email', 'not-an-email', false)).toEqual({ reason: 'not an email address' });
  });
});

// Mutation testing (TESTING.md): the anchors of the email check, the "00" international prefix
// only at the start, and the national-first rule with --default-country were not pinned.
describe('normalization boundaries', () => {
  it('rejects an address with a second @ or a space anywhere', () => {
    for (const bad of ['a@b@c', 'a@b c', 'a b@c', '@b.c', 'a@', 'a@b\tc', 'a@b.c@'])
      expect(val(normalizeEmail(bad)), bad).toMatch(/^REJECT/);
    expect(val(normalizeEmail('  A.B+c@Example.COM \t'))).toBe('a.b+c@example.com');
  });

  it('rejects a domain without a dot or with an empty label (issue 40: user@x, user@x..com)', () => {
    for (const bad of ['user@x', 'user@x..com', 'a@.com', 'a@b.', 'a@b.c.', 'a@..b'])
      expect(val(normalizeEmail(bad)), bad).toMatch(/^REJECT/);
    for (const good of ['a@b.co', 'a..b@x.com', 'a.@x.co.uk', 'ü@bücher.de'])
      expect(val(normalizeEmail(good)), good).not.toMatch(/^REJECT/);
  });

  // [input, --default-country, E.164 without +, or REJECT]
  const phones: Array<[string, string | undefined, string]> = [
    ['(415) 500-2671', 'US', '14155002671'], // "00" inside a national number is not a prefix
    ['415-500-2671', 'US', '14155002671'],
    ['4155002671', 'US', '14155002671'],
    ['00 1 415 555 2671', undefined, '14155552671'], // "00" first is international
    ['00-44-20-7946-0958', 'US', '442079460958'],
    ['+1 415 555 2671', 'GB', '14155552671'], // an explicit + wins over the default country
    // valid both as a US number and as +86...: the default country is read first
    ['860 200 4111', 'US', '18602004111'],
    ['8602004111', undefined, '862004111'], // without it, digits that start with a country code
    // every non-digit goes before the country code is tried, not only the first
    ['33 6 12 34 56 78', undefined, '33612345678'],
    ['44_20_7946_0958', undefined, '442079460958'],
    ['44_20_7946_0958', 'US', '442079460958'],
    ['0044 20 7946 095', undefined, 'REJECT'], // 00 + too short is not re-read as national
    ['+44 20 7946', 'GB', 'REJECT'],
    ['()-.', 'US', 'REJECT'],
  ];
  it.each(phones)('phone %j with %s -> %s', (raw, cc, want) => {
    const got = val(normalizePhone(raw, cc));
    if (want === 'REJECT') expect(got).toMatch(/^REJECT/);
    else expect(got).toBe(want);
  });
});

// Mutation testing (TESTING.md): every rejection reason is what the rejects file and the summary
// show, so each is pinned word for word; device_id and partner_user_id through normalize().
describe('rejection reasons, word for word', () => {
  const rows: Array<[IdType, string, string]> = [
    ['email', 'nope', 'not an email address'],
    ['handle', 'has space', 'not a handle (1-15 letters, digits or _)'],
    ['twitter_id', '12a', 'not a numeric user id'],
    ['twitter_id', '000', 'user id is zero'],
    ['device_id', 'a b', 'not a device id'],
    ['partner_user_id', '  ', 'empty partner user id'],
    ['phone_number', 'call me', 'not a phone number'],
    ['phone_number', '+1 555', 'not a valid phone number'],
    ['phone_number', '020 7946 0958', 'national phone number without --default-country'],
  ];
  it.each(rows)('%s %j: %s', (type, raw, reason) => {
    expect(normalize(type, raw)).toEqual({ reason });
  });

  it('with --default-country, a number valid nowhere is "not valid", not "national"', () => {
    expect(normalizePhone('123', 'US')).toEqual({ reason: 'not a valid phone number' });
    expect(normalizePhone('020 7946 0958', 'FR')).toEqual({ reason: 'not a valid phone number' });
    expect(normalize('phone_number', '123', 'US')).toEqual({ reason: 'not a valid phone number' });
    // spaces before the + are trimmed first: still international, so "not valid", not "national"
    expect(normalizePhone(' +1 555 ')).toEqual({ reason: 'not a valid phone number' });
  });

  it('normalize() routes device_id and partner_user_id to their own rules', () => {
    expect(normalize('device_id', ' AB-CD ')).toEqual({ value: 'ab-cd' });
    expect(normalize('partner_user_id', ' Keep Case ')).toEqual({ value: 'Keep Case' });
    expect(normalize('phone_number', ' +44 20 7946 0958 ')).toEqual({ value: '442079460958' });
  });

  it('--hashed refuses what is not a whole digest, naming why', () => {
    const d = sha256Hex('x');
    expect(prepare('email', ` ${d.toUpperCase()} `, true)).toEqual({ value: d });
    for (const bad of [d.slice(1), `x${d}`, `${d}x`, `${d.slice(0, 63)}g`]) {
      expect(prepare('email', bad, true)).toEqual({
        reason: 'not a SHA-256 digest (64 hex characters), but --hashed was given',
      });
    }
    expect(looksHashed(`${d}0`)).toBe(false);
    expect(looksHashed(`z${d.slice(1)}`)).toBe(false);
  });
});
