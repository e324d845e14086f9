// The two HMAC-SHA256 values of the webhook contract (docs/contract.md, notes "Webhook challenge" and
// "Delivery signature"): the CRC response token and the delivery signature. Both sides use these.
import crypto from 'node:crypto';

/** Both header names a delivery may carry: the spec's, then the live platform's. */
export const SIGNATURE_HEADERS = ['x-service-webhooks-signature', 'x-twitter-webhooks-signature'] as const;

/** "sha256=" + base64(HMAC-SHA256(consumer secret, message)), standard base64 with padding. */
export function hmacToken(secret: string, message: string | Buffer): string {
  return 'sha256=' + crypto.createHmac('sha256', secret).update(message).digest('base64');
}

/** The CRC answer: {"response_token": hmacToken(secret, crc_token)}. */
export function crcResponse(secret: string, crcToken: string): { response_token: string } {
  return { response_token: hmacToken(secret, crcToken) };
}

/** The signature header value of a delivery body (the raw bytes, never a re-serialization). */
export function signBody(secret: string, rawBody: string | Buffer): string {
  return hmacToken(secret, rawBody);
}

/** The headers of a signed delivery: JSON, and the signature under both names. */
export function deliveryHeaders(secret: string, rawBody: string | Buffer): Record<string, string> {
  const sig = signBody(secret, rawBody);
  return { 'content-type': 'application/json', [SIGNATURE_HEADERS[0]]: sig, [SIGNATURE_HEADERS[1]]: sig };
}

/** Constant-time check of a delivery signature; false for any malformed or missing value. */
export function verifySignature(secret: string, rawBody: string | Buffer, signature: string | undefined): boolean {
  const sig = typeof signature === 'string' ? signature.trim() : '';
  if (!sig.startsWith('sha256=')) return false;
  const expected = Buffer.from(signBody(secret, rawBody));
  const given = Buffer.from(sig);
  // timingSafeEqual needs equal lengths; compare against itself on a length mismatch so the
  // time spent does not reveal which case happened.
  const same = given.length === expected.length;
  return crypto.timingSafeEqual(same ? given : expected, expected) && same;
}

/**
 * Tokens shaped like the service's (at most 256 of letters, digits and `-_=+/.:`). A receiver
 * answers only these: anything else (e.g. a JSON body) could turn the CRC endpoint into an
 * oracle that signs forged deliveries (docs/contract.md, design "Webhook receiver").
 */
export function isServiceShapedCrcToken(token: string): boolean {
  if (!/^[A-Za-z0-9\-_=+/.:]{1,256}$/.test(token)) return false;
  // A token that is itself a JSON text (`null`, `true`, `12345`, `-1.5e+300`) would get a signature
  // that is valid for a delivery whose body is that text.
  try {
    JSON.parse(token);
    return false;
  } catch {
    return true;
  }
}
