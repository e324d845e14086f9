// Unit tests import the sources (so mutation testing mutates what they run), but the hash workers
// are threads that Node starts from a JavaScript file: they load the built dist/ copy of
// hash-worker.js. worker-pool.ts takes its worker script from XCTL_HASH_WORKER when that is
// defined (the bundle defines it); a global of that name does the same for the sources. Import
// this module before any module that loads worker-pool.ts.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const built = path.resolve(import.meta.dirname, '../../dist/audiences/hash-worker.js');
if (!fs.existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
(globalThis as { XCTL_HASH_WORKER?: string }).XCTL_HASH_WORKER = pathToFileURL(built).href;
