import { describe, expect, it } from 'vitest';
import { ApiError, AuthError, RateLimitError, errorFromResponse, ExitCode } from '../../src/core/errors.js';

describe('errorFromResponse: the three error shapes of docs/contract.md, notes', () => {
  it('v1.1 style', () => {
    const e = errorFromResponse(401, { errors: [{ message: 'Invalid or expired token', code: 89 }] });
    expect(e).toBeInstanceOf(AuthError);
    expect(e.exitCode).toBe(ExitCode.AUTH);
    expect(e.code).toBe(89);
    expect(e.message).toContain('Invalid or expired token');
    expect(e.hint).toMatch(/log in again/);
  });
  it('403 code 99 explains caching', () => {
    const e = errorFromResponse(403, {
      errors: [{ code: 99, label: 'authenticity_token_error', message: 'Unable to verify your credentials' }],
    });
    expect(e.exitCode).toBe(3);
    expect(e.hint).toMatch(/cached/);
  });
  it('an ads batch refused by an item: operation_errors, the item named by its position', () => {
    const e = errorFromResponse(400, {
      operation_errors: [
        [],
        [{ code: 'INVALID_PARAMETER', message: 'operation 1: users must be a non-empty array', parameter: 'users' }],
      ],
    });
    expect([e.code, e.parameter]).toEqual(['INVALID_PARAMETER', 'users']);
    expect(e.message).toBe(
      'item 2: operation 1: users must be a non-empty array (HTTP 400, code INVALID_PARAMETER, parameter users)',
    );
  });
  it('v2 problem form', () => {
    const e = errorFromResponse(400, {
      title: 'Invalid Request',
      detail: 'url is not https',
      type: 'https://api.x.com/2/problems/invalid-request',
      parameter: 'url',
    });
    expect(e).toBeInstanceOf(ApiError);
    expect(e.exitCode).toBe(1);
    expect(e.code).toBe('invalid-request');
    expect(e.parameter).toBe('url');
    expect(e.message).toContain('Invalid Request: url is not https');
  });
  it('the OAuth 2.0 problems (about:blank, title equal to detail) read once, with no code', () => {
    const e = errorFromResponse(403, { title: 'Forbidden', type: 'about:blank', status: 403, detail: 'Forbidden' });
    expect(e).toBeInstanceOf(AuthError);
    expect(e.message).toBe('Forbidden (HTTP 403)');
    expect(e.code).toBeUndefined();
    expect(
      errorFromResponse(401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' })
        .exitCode,
    ).toBe(3);
  });
  it('v2 errors array of problems', () => {
    const e = errorFromResponse(409, {
      errors: [
        { title: 'DuplicateUrlFailed', detail: 'already registered', type: 'https://api.x.com/2/problems/duplicate' },
      ],
    });
    expect(e.message).toContain('already registered');
    expect(e.code).toBe('duplicate');
  });
  it('ads style with parameter', () => {
    const e = errorFromResponse(400, {
      errors: [{ code: 'INVALID_PARAMETER', message: 'bad start', parameter: 'start_time' }],
      request: { params: {} },
    });
    expect(e.code).toBe('INVALID_PARAMETER');
    expect(e.parameter).toBe('start_time');
    expect(e.message).toContain('parameter start_time');
  });
  it('429 becomes RateLimitError with the reset time', () => {
    const e = errorFromResponse(
      429,
      { errors: [{ code: 'TOO_MANY_REQUESTS', message: 'slow down' }] },
      { resetAt: 123 },
    );
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).resetAt).toBe(123);
  });
  it('HTML or garbage bodies give a short message, not a dump', () => {
    const e = errorFromResponse(502, undefined, { fallbackText: '<html><body><h1>Bad Gateway</h1></body></html>' });
    expect(e.message).toContain('Bad Gateway');
    expect(e.message.length).toBeLessThan(200);
  });
});
