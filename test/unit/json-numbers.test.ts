// 64-bit integers through the whole path (issue 26 item 1): the service's stats job ids are
// 19-digit JSON numbers. core/json.ts parses them exactly (bigint) and writes them back digit for
// digit; every output format prints the number it received; `id` shows `id_str` in tsv and tables.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/core/json.js';
import { HttpRegistry, route, text } from '../helpers/http-registry.js';
import { testContext, type TestContext } from '../helpers/test-context.js';

const BIG = '1120845642591662080'; // JSON.parse gives 1120845642591662100

describe('parseJson / stringifyJson', () => {
  it('integers beyond 2^53 keep every digit; the rest is JSON.parse', () => {
    const v = parseJson(`{"id":${BIG},"id_str":"${BIG}","n":-9007199254740993,"safe":9007199254740991}`) as Record<
      string,
      unknown
    >;
    expect(v).toEqual({ id: BigInt(BIG), id_str: BIG, n: -9007199254740993n, safe: 9007199254740991 });
    expect(stringifyJson(v)).toBe(`{"id":${BIG},"id_str":"${BIG}","n":-9007199254740993,"safe":9007199254740991}`);
    expect(stringifyJson({ a: [BigInt(BIG)] }, 2)).toBe(`{\n  "a": [\n    ${BIG}\n  ]\n}`);
  });

  it('digits inside strings, fractions and exponents are left alone', () => {
    const src = `{"s":"x ${BIG} \\" ${BIG}","t":"a:${BIG}, [${BIG}","f":1.12345678901234567890,"e":1e12345678901234567,"g":12345678901234567890.5,"h":2E-12345678901234567}`;
    const v = parseJson(src) as Record<string, unknown>;
    expect(v).toEqual(JSON.parse(src));
    expect(typeof v.g).toBe('number');
  });

  it('malformed JSON throws as JSON.parse does', () => {
    expect(() => parseJson(`{"id":${BIG},}`)).toThrow(SyntaxError);
    expect(() => parseJson('{"a":1')).toThrow(SyntaxError);
  });

  it('property: any 64-bit integer, anywhere in a document, round-trips exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n }), fc.string(), (n, s) => {
        const src = `[{"k":${n},"s":${JSON.stringify(s)}},${n}]`;
        const v = parseJson(src);
        expect(stringifyJson(v)).toBe(src);
        const kept = (v as Array<{ k: unknown }>)[0]!.k;
        expect(String(kept)).toBe(String(n));
      }),
    );
  });

  it('a cycle still throws', () => {
    const o: Record<string, unknown> = { n: 1n };
    o.self = o;
    expect(() => stringifyJson(o)).toThrow(TypeError);
  });
});

const made: TestContext[] = [];
afterEach(() => {
  for (const t of made.splice(0)) t.cleanup();
});

/** `xctl ads stats job get BIG ...args` against an answer holding the 19-digit id as a number. */
async function jobGet(args: string[], tty = false): Promise<string> {
  const reg = new HttpRegistry();
  const body = `{"data":[{"id":${BIG},"id_str":"${BIG}","status":"SUCCESS","url":null,"expires_at":null,"entity":"LINE_ITEM"}],"request":{"params":{"job_ids":[${BIG}]}}}`;
  reg.register(route('GET', '/12/stats/jobs/accounts/acct1'), text(body, 200, 'application/json'));
  const t = testContext({ tty, columns: 200, transport: reg });
  made.push(t);
  await t.run(['ads', 'stats', 'job', 'get', BIG, ...args]);
  reg.verify();
  return t.stdout();
}

describe('every output format prints the id it received', () => {
  it('json, jsonl, --jq, --fields with tsv/csv/json, and the table', async () => {
    expect(await jobGet(['-o', 'json'])).toContain(`"id": ${BIG},`);
    expect(await jobGet(['-o', 'jsonl'])).toContain(`{"id":${BIG},"id_str":"${BIG}"`);
    expect(await jobGet(['--jq', '.id'])).toBe(`${BIG}\n`);
    expect(await jobGet(['--fields', 'id', '-o', 'tsv'])).toBe(`${BIG}\n`);
    expect(await jobGet(['--fields', 'id,status', '-o', 'csv'])).toBe(`${BIG},SUCCESS\r\n`);
    expect(await jobGet(['--fields', 'id', '-o', 'json'])).toBe(`{\n  "id": ${BIG}\n}\n`);
    expect(await jobGet(['--fields', 'id', '-o', 'table'], true)).toContain(BIG);
  });
});

// Issue 43: only `id` reads `id_str` in a table, tsv or csv; every other 64-bit number (an
// `account_id`, a nested `user.id`) must print the digits it was sent too. A renderer that
// turned a bigint into a Number (1120845642591662081 -> 1120845642591662000) passed every test
// above, which look at `id` alone.
describe('every 64-bit number, not only `id`, prints exactly', () => {
  const ACCT = '1234567890123456789';
  const UID = '9223372036854775807'; // 2^63 - 1
  async function answer(args: string[], tty = false): Promise<string> {
    const reg = new HttpRegistry();
    const body = `{"data":[{"id":${BIG},"id_str":"${BIG}","account_id":${ACCT},"user":{"id":${UID},"id_str":"${UID}"},"n":-${ACCT}}]}`;
    reg.register(route('GET', '/12/x'), text(body, 200, 'application/json'));
    const t = testContext({ tty, columns: 200, transport: reg });
    made.push(t);
    await t.run(['request', '--ads', '/12/x', ...args]);
    reg.verify();
    return t.stdout();
  }
  it('tsv, csv, json, jsonl, --jq and the table', async () => {
    const fields = ['--fields', 'id,account_id,user.id,n'];
    expect(await answer([...fields, '-o', 'tsv'])).toBe(`${BIG}\t${ACCT}\t${UID}\t-${ACCT}\n`);
    expect(await answer([...fields, '-o', 'csv'])).toBe(`${BIG},${ACCT},${UID},-${ACCT}\r\n`);
    expect(JSON.parse((await answer([...fields, '-o', 'jsonl'])).replace(/(-?\d{16,})/g, '"$1"'))).toEqual({
      id: BIG,
      account_id: ACCT,
      'user.id': UID,
      n: `-${ACCT}`,
    });
    expect(await answer(['--jq', '.data[0].account_id, .data[0].user.id'])).toBe(`${ACCT}\n${UID}\n`);
    const table = await answer([...fields, '-o', 'table'], true);
    for (const v of [BIG, ACCT, UID, `-${ACCT}`]) expect(table).toContain(v);
  });
});
