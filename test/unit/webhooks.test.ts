// Webhook cryptography against the published vector, signature checks, URL rules, rule matching,
// and the CLI's input parsing for replay windows, rules files and stream de-duplication.
import { describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import {
  crcResponse,
  deliveryHeaders,
  hmacToken,
  SIGNATURE_HEADERS,
  isServiceShapedCrcToken,
  signBody,
  verifySignature,
} from '../../src/webhooks/crypto.js';
import { webhookUrlProblem } from '../../src/contract/webhook-url.js';
import { matchRule, ruleProblem } from '../../src/webhooks/rule-match.js';
import { parseReplayTime } from '../../src/commands/webhooks/replay.js';
import { toReplayDate } from '../../src/contract/webhooks.js';
import { parseRulesFile } from '../../src/commands/stream/rules/input.js';
import { eventKey } from '../../src/commands/activity/stream.js';
import { summarize } from '../../src/commands/webhooks/listen.js';
import { buildSubscription } from '../../src/commands/activity/subscriptions/create.js';

describe('CRC (docs/contract.md, notes vector)', () => {
  it('matches the published response token', () => {
    expect(
      crcResponse('z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu', '9b4507b3-9040-4669-9ca3-6b94edb50553'),
    ).toEqual({
      response_token: 'sha256=Cytd4Sq+NvEcV3MMrXxWJGJx5A+y/lXzzU2Maartkx8=',
    });
  });
  it('accepts only service-shaped tokens', () => {
    expect(isServiceShapedCrcToken('9b4507b3-9040-4669-9ca3-6b94edb50553')).toBe(true);
    expect(isServiceShapedCrcToken('abc_DEF=+/.:-')).toBe(true);
    expect(isServiceShapedCrcToken('a'.repeat(256))).toBe(true);
    expect(isServiceShapedCrcToken('a'.repeat(257))).toBe(false);
    expect(isServiceShapedCrcToken('{"data":{"event_type":"x"}}')).toBe(false);
    expect(isServiceShapedCrcToken('has space')).toBe(false);
    expect(isServiceShapedCrcToken('')).toBe(false);
  });
});

describe('delivery signatures', () => {
  const secret = 'consumer-secret';
  const body = Buffer.from('{"data":{"event_type":"profile.update.bio","payload":{"after":"héllo"}}}');
  const independent = 'sha256=' + crypto.createHmac('sha256', secret).update(body).digest('base64');
  it('signs the raw bytes like node:crypto', () => {
    expect(signBody(secret, body)).toBe(independent);
    expect(hmacToken(secret, body)).toBe(independent);
  });
  it('verifies valid and rejects forged, tampered, wrongly keyed and malformed values', () => {
    expect(verifySignature(secret, body, independent)).toBe(true);
    expect(verifySignature(secret, body, ` ${independent} `)).toBe(true);
    expect(verifySignature(secret, Buffer.concat([body, Buffer.from(' ')]), independent)).toBe(false);
    expect(verifySignature('other', body, independent)).toBe(false);
    expect(verifySignature(secret, body, independent.replace('sha256=', ''))).toBe(false);
    expect(verifySignature(secret, body, independent.slice(0, -2))).toBe(false);
    expect(verifySignature(secret, body, undefined)).toBe(false);
    expect(verifySignature(secret, body, 'sha256=')).toBe(false);
  });
  it("delivery headers: JSON, and the same signature under the spec's and the platform's names", () => {
    expect(SIGNATURE_HEADERS).toEqual(['x-service-webhooks-signature', 'x-twitter-webhooks-signature']);
    expect(deliveryHeaders(secret, body)).toEqual({
      'content-type': 'application/json',
      'x-service-webhooks-signature': independent,
      'x-twitter-webhooks-signature': independent,
    });
  });
});

describe('webhook URL rules', () => {
  it('requires https, no port, a public host, 1-200 characters', () => {
    expect(webhookUrlProblem('https://hooks.example.org/x', false)).toBeUndefined();
    expect(webhookUrlProblem('http://hooks.example.org/x', false)).toMatch(/https/);
    expect(webhookUrlProblem('https://hooks.example.org:8443/x', false)).toMatch(/port/);
    for (const h of [
      'localhost',
      '127.0.0.1',
      '10.1.2.3',
      '192.168.0.2',
      '172.20.0.1',
      '169.254.1.1',
      'printer',
      'box.local',
      '[::1]',
      '[fd00::1]',
    ]) {
      expect(webhookUrlProblem(`https://${h}/x`, false), h).toMatch(/public|https/);
    }
    expect(webhookUrlProblem('https://a.org/' + 'x'.repeat(190), false)).toMatch(/200/);
    expect(webhookUrlProblem('not a url', false)).toMatch(/must be a URL/);
  });
  it('admits loopback http receivers only when allowed (the sandbox)', () => {
    expect(webhookUrlProblem('http://127.0.0.1:8080/webhooks', true)).toBeUndefined();
    expect(webhookUrlProblem('http://127.0.0.1:8080/webhooks', false)).toMatch(/https/);
    expect(webhookUrlProblem('http://10.0.0.1:8080/webhooks', true)).toMatch(/https/);
  });
});

describe('filtered stream rules', () => {
  it('limits length to 2,048 characters and parses the rule language', () => {
    expect(ruleProblem('a'.repeat(2048))).toBeUndefined();
    expect(ruleProblem('a'.repeat(2049))).toMatch(/2048/);
    expect(ruleProblem('(cats')).toMatch(/parenthes/);
    expect(ruleProblem('"cats')).toMatch(/quotes/);
    expect(ruleProblem('lang:en cats')).toMatch(/not supported/);
    expect(ruleProblem('  ')).toMatch(/empty/);
  });
  it('matches words, phrases, OR, negation, groups and from:', () => {
    const m = (r: string, t: string, author = '1') => matchRule(r, t, author);
    expect(m('cats', 'I love Cats!')).toBe(true);
    expect(m('cat', 'I love cats')).toBe(false); // whole words
    expect(m('cats dogs', 'cats only')).toBe(false);
    expect(m('cats OR dogs', 'dogs only')).toBe(true);
    expect(m('"big cat"', 'a BIG CAT here')).toBe(true);
    expect(m('cats -spam', 'cats spam')).toBe(false);
    expect(m('(cats OR dogs) -(spam OR ads)', 'dogs and ads')).toBe(false);
    expect(m('(cats OR dogs) -(spam OR ads)', 'dogs rule')).toBe(true);
    expect(m('#xctl', 'ship it #xctl')).toBe(true);
    expect(m('from:42', 'anything', '42')).toBe(true);
    expect(m('from:42', 'anything', '43')).toBe(false);
  });
  it('reads rules files as JSON arrays, JSON lines or plain lines', () => {
    expect(parseRulesFile('[{"value":"a","tag":"t"},"b"]')).toEqual([{ value: 'a', tag: 't' }, { value: 'b' }]);
    expect(parseRulesFile('{"value":"a"}\n# comment\n\nplain rule\n')).toEqual([
      { value: 'a' },
      { value: 'plain rule' },
    ]);
    expect(() => parseRulesFile('[{"nope":1}]')).toThrow(/item 1/);
    expect(() => parseRulesFile('{"value":')).toThrow(/line 1/);
  });
});

describe('CLI input parsing', () => {
  it('reads replay times as ISO or yyyymmddhhmm (UTC) and formats them back', () => {
    const t = Date.UTC(2026, 0, 15, 12, 5);
    expect(parseReplayTime('202601151205', '--from', t)).toBe(t);
    expect(parseReplayTime('2026-01-15T12:05:00Z', '--from', t)).toBe(t);
    // Issue 46: relative times, so that the help's examples work on any day.
    expect(parseReplayTime('now-2h', '--from', t)).toBe(t - 2 * 3_600_000);
    expect(parseReplayTime('today', '--from', t)).toBe(Date.UTC(2026, 0, 15));
    expect(parseReplayTime('today-1d', '--from', t)).toBe(Date.UTC(2026, 0, 14));
    expect(toReplayDate(t + 59_000)).toBe('202601151205');
    for (const bad of ['202613151205', '202601321205', '202601152405', '2026-01-15', 'yesterday'])
      expect(() => parseReplayTime(bad, '--from', 0)).toThrow(/--from/);
  });
  it('builds subscriptions and refuses deprecated names with the new one', () => {
    expect(
      buildSubscription({ event: 'dm.received', direction: 'inbound', keyword: 'hi', tag: 't', webhook: '12' }),
    ).toEqual({
      event_type: 'dm.received',
      filter: { direction: 'inbound', keyword: 'hi' },
      tag: 't',
      webhook_id: '12',
    });
    expect(() => buildSubscription({ event: 'ProfileBioUpdate' })).toThrow(/use profile\.update\.bio/);
    expect(() => buildSubscription({ event: 'profile.update.bio', direction: 'inbound' })).toThrow(/--direction/);
    expect(() => buildSubscription({ event: 'profile.update.bio', keyword: 'k'.repeat(151) })).toThrow(/--keyword/);
    expect(() => buildSubscription({ event: 'profile.update.bio', tag: '' })).toThrow(/--tag/);
    expect(() => buildSubscription({})).toThrow(/--event/);
  });
  it('keys stream events for de-duplication and summarizes deliveries', () => {
    const line = JSON.stringify({
      data: { event_uuid: 'u1', event_type: 'spaces.start', filter: { user_id: '1' }, tag: 'a', payload: {} },
    });
    expect(eventKey(line)).toBe('u1|spaces.start|a|{"user_id":"1"}');
    expect(eventKey('not json')).toBeUndefined();
    expect(
      summarize({
        data: { event_type: 'profile.update.bio', filter: { user_id: '7' }, payload: { before: 'a', after: 'b' } },
      }),
    ).toEqual({ type: 'profile.update.bio', user: '7', summary: '"a" -> "b"' });
    // issue 29 item 8: whose event it is, from the filter as the SDKs spell it, else the payload
    const userOf = (data: Record<string, unknown>) => summarize({ data: { event_type: 'x.y', ...data } }).user;
    expect(userOf({ filter: { userId: '8' }, payload: {} })).toBe('8');
    expect(userOf({ filter: {}, payload: { author_id: '9', id: '1' } })).toBe('9');
    expect(userOf({ filter: {}, payload: { source: { id: '10' }, target: { id: '11' } } })).toBe('10');
    expect(userOf({ filter: { keyword: 'k' }, payload: { source: 'not an object' } })).toBe('-');
    expect(userOf({ filter: { user_id: '7' }, payload: { author_id: '9' } })).toBe('7');
    expect(
      summarize({
        data: { id: '9', text: 'hi', author_id: '3', edit_history_tweet_ids: ['8', '9'] },
        matching_rules: [{ id: '1', tag: 'pets' }],
      }),
    ).toEqual({ type: 'post', user: '3', summary: '9 (edit 1): hi [rules pets]' });
  });
});

// Mutation testing (TESTING.md): the refusal of CRC tokens that are themselves JSON was never run.
describe('isServiceShapedCrcToken', () => {
  it.each([
    ['abc-123_=+/.:', true],
    ['MTk5MjU1NTkzNw==', true],
    ['12345', false], // a number is a JSON text: its signature would sign the body "12345"
    ['-1.5e+300', false],
    ['null', false],
    ['true', false],
    ['', false],
    ['a'.repeat(257), false],
    ['{"a":1}', false],
    ['with space', false],
  ])('%j -> %s', (token, ok) => expect(isServiceShapedCrcToken(token as string)).toBe(ok));
});
