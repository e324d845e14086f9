'use strict';
// The floor of a command that makes one request: node itself, node:http loaded, one GET of
// FLOOR_URL with `Authorization: Bearer FLOOR_BEARER`, the body written to stdout. This is what
// node's HTTP stack alone costs (20-commands.js times it against `node -e 0` like the commands):
// `xctl webhooks list -o json` makes this same request, so the difference is xctl's own.
// CommonJS and no dependencies, like bin/xctl.js: nothing here that a command could skip.
const http = require('node:http');

const url = process.env.FLOOR_URL;
const bearer = process.env.FLOOR_BEARER;
if (!url || !bearer) {
  process.stderr.write('floor-http-get: FLOOR_URL and FLOOR_BEARER must be set\n');
  process.exit(2);
}
http
  .get(url, { headers: { authorization: `Bearer ${bearer}` } }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => {
      process.stdout.write(Buffer.concat(chunks));
      if (res.statusCode !== 200) process.exitCode = 1;
    });
  })
  .on('error', (err) => {
    process.stderr.write(`floor-http-get: ${err.message}\n`);
    process.exitCode = 1;
  });
