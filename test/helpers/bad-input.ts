// The bad-input corpus (issue 10) shared by the in-process tests (test/unit/refusals.test.ts,
// service-answers.test.ts) and the real process's (test/e2e/safety-input.test.ts): bad files for
// every file input, and a loopback server answering HTML or truncated JSON.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * Writes the corpus's files into dir: empty, bad (invalid JSON), bin (a zip's first bytes), csv (an
 * email column), targeting (one LOCATION criterion); missing names a file that does not exist.
 */
export function writeBadInputs(dir: string): Record<string, string> {
  const f: Record<string, string> = {};
  const write = (name: string, content: string | Buffer) => {
    f[name] = path.join(dir, name + (name === 'csv' ? '.csv' : '.json'));
    fs.writeFileSync(f[name]!, content);
  };
  write('empty', '');
  write('bad', '{"name": "x",');
  write('bin', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.from([0, 0, 255, 254, 0, 1])]));
  write('csv', 'email\na@example.com\n');
  const criteria = [{ targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' }];
  write('targeting', JSON.stringify({ targeting_criteria: criteria }));
  f.missing = path.join(dir, 'no-such-file.json');
  return f;
}

/** A loopback server answering every path with an HTML page, or (under /garbage) truncated JSON. */
export async function startHtmlServer(): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    if (req.url?.includes('garbage')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"data": [1, 2,');
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
