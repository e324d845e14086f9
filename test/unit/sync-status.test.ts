// The "status" a stopped sync or upload prints with its summary (-o json): a --deadline stop
// (exit 75) is resumable as exit 4 is, so it says "partial" (issue 40 item 9); exit 5 "diverged".
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../src/commands/audiences/partial.js';

describe('statusOf', () => {
  it.each([
    [4, 'partial'],
    [75, 'partial'],
    [5, 'diverged'],
    [130, 'interrupted'],
    [1, 'failed'],
  ])('exit %i -> %s', (code, status) => expect(statusOf(code)).toBe(status));
});
