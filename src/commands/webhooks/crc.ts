// `xctl webhooks crc <crc_token>`: the challenge answer a receiver must give, computed locally.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { declare } from '../define.js';
import { consumerSecret } from './checks.js';

export interface CrcOptions {
  token: string;
}

export function register(parent: Command, runF = webhooksCrc): void {
  declare(parent, {
    name: 'crc',
    description: 'print the challenge answer {"response_token":"sha256=..."} for a token',
    arguments: [['<crc_token>', 'the crc_token of the challenge request']],
    run: (ctx, _o, [token]) => runF(ctx, { token }),
  });
}

/** Prints {"response_token":"sha256=..."}: HMAC-SHA256 of the token with the API secret. */
export async function webhooksCrc(ctx: Context, o: CrcOptions): Promise<void> {
  const { crcResponse, isServiceShapedCrcToken } = await import('../../webhooks/crypto.js');
  if (/^[A-Za-z0-9\-_=+/.:]{1,256}$/.test(o.token) && !isServiceShapedCrcToken(o.token)) {
    // A token that is a JSON text (12345, true, null) is refused on purpose: its signature would
    // also sign a forged delivery whose body is that text.
    const why =
      'a crc_token that is also a JSON value (a number, true, false, null) would make the answer a valid signature for a delivery with that body';
    throw new UsageError(`"${o.token}" is refused on purpose: ${why}`, {
      flag: '<crc_token>',
      hint: 'the service sends random tokens with letters; for a try, use one such as xctl-test-token',
    });
  }
  if (!isServiceShapedCrcToken(o.token))
    throw new UsageError(
      'a crc_token is at most 256 letters, digits and -_=+/.: (anything else is not from the service)',
      { flag: '<crc_token>' },
    );
  ctx.io.out(JSON.stringify(crcResponse(await consumerSecret(ctx), o.token)));
}
