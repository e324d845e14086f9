// The wire behind the HTTP client (stripe-node's HttpClient): the client keeps auth, retries,
// rate limits and the trace; a Transport only sends one request and hands back the response.
// node:http in production; tests pass an HttpRegistry (test/helpers/http-registry.ts).
import type { Readable } from 'node:stream';

export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** Time allowed until the response headers arrive. */
  headersTimeoutMs: number;
  /** Time allowed between body chunks; 0 for none (streams). */
  bodyTimeoutMs: number;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as a stream; read it once, either here or with text(). */
  body: Readable;
  text(): Promise<string>;
}

/**
 * Sends one request. Connection failures are thrown as errors carrying the system `code`
 * (ECONNREFUSED, ECONNRESET, UND_ERR_HEADERS_TIMEOUT, ...); the client maps them to NetworkError and decides on retries.
 */
export interface Transport {
  send(req: TransportRequest): Promise<TransportResponse>;
}
