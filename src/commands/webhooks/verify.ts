// `xctl webhooks verify --signature S [--body @file|-]`: exit 0 valid, 1 invalid.
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed, UsageError, errnoCode, errorMessage } from '../../core/errors.js';
import { declare } from '../define.js';
import { consumerSecret } from './checks.js';
import { bufferOf } from '../../contract/guards.js';

export interface VerifyOptions {
  signature?: string;
  body?: string;
}

export function register(parent: Command, runF = webhooksVerify): void {
  declare(parent, {
    name: 'verify',
    description: 'check a delivery signature against the raw body: exit 0 valid, 1 invalid',
    options: [
      ['--signature <value>', 'the x-service-webhooks-signature (or x-twitter-webhooks-signature) header value'],
      ['--body <file>', 'the raw body: @file, file, or - for stdin', '-'],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** Exit 0 when the signature matches the raw body, 1 when not (constant-time compare). */
export async function webhooksVerify(ctx: Context, o: VerifyOptions): Promise<void> {
  if (!o.signature)
    throw new UsageError('--signature is required (the x-service-webhooks-signature header value)', {
      flag: '--signature',
    });
  const spec = o.body ?? '-';
  let raw: Buffer;
  if (spec === '-' || spec === '@-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(bufferOf(c));
    raw = Buffer.concat(chunks); // the raw bytes: a re-encoded body would not match its signature
  } else {
    const p = spec.startsWith('@') ? spec.slice(1) : spec;
    try {
      raw = await fs.promises.readFile(p);
    } catch (e) {
      const code = errnoCode(e);
      throw new UsageError(
        `--body: cannot read ${p}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? errorMessage(e))}`,
        { flag: '--body' },
      );
    }
  }
  const { verifySignature } = await import('../../webhooks/crypto.js');
  if (verifySignature(await consumerSecret(ctx), raw, o.signature)) {
    ctx.io.info('signature valid');
    return;
  }
  // The signature covers the exact bytes: say how many were checked, and what a final newline
  // (an editor's, or `echo`'s) does to it.
  const nl = raw.length && raw[raw.length - 1] === 0x0a;
  const ok = nl && verifySignature(await consumerSecret(ctx), raw.subarray(0, raw.length - 1), o.signature);
  throw new CheckFailed(`signature invalid for this body (${raw.length} bytes checked) and API secret`, {
    hint: ok
      ? 'the body without its final newline matches: the signature covers the exact bytes received; save the body without the newline (printf, not echo)'
      : nl
        ? 'the signature covers the exact bytes, a final newline included: this body ends with one'
        : undefined,
  });
}
