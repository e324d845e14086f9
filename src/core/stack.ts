// A stack trace in the sources' terms: frames in the bundle (dist/cli/*.cjs, minified) are mapped
// through the source map the build writes beside each script, to src/ file:line:column. A frame
// naming a script of another checkout (V8's code cache keeps the name of the script that wrote
// it) is mapped all the same: the build is the same one, by the cache's key.
import fs from 'node:fs';
import nodeModule, { type SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `stack` with each bundle frame mapped (unchanged when the map cannot be read). */
export function mapStack(stack: string, mapFile: URL | string): string {
  let map: SourceMap;
  const file = typeof mapFile === 'string' ? mapFile : fileURLToPath(mapFile);
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as ConstructorParameters<typeof SourceMap>[0];
    map = new nodeModule.SourceMap(raw);
  } catch {
    return stack;
  }
  const bundle = path.basename(file).replace(/\.map$/, '');
  const frame = new RegExp(`(?:file://)?[^\\s()]*[\\\\/]${bundle.replace(/\./g, '\\.')}:(\\d+):(\\d+)`, 'g');
  return stack.replace(frame, (whole, line: string, col: string) => {
    const e = map.findEntry(Number(line) - 1, Number(col) - 1) as {
      originalSource?: string;
      originalLine?: number;
      originalColumn?: number;
    };
    if (!e.originalSource || e.originalLine === undefined) return whole;
    const src = e.originalSource.startsWith('file://')
      ? fileURLToPath(e.originalSource)
      : path.resolve(path.dirname(file), e.originalSource);
    // Named from the package's root (dist/cli/ is two folders down): src/core/http.ts:120:7.
    return `${path.relative(path.resolve(path.dirname(file), '../..'), src)}:${e.originalLine + 1}:${(e.originalColumn ?? 0) + 1}`;
  });
}

/**
 * `stack` with the frames of every script of the build that a frame names (main.cjs, the chunks
 * beside it: scripts/bundle.js) mapped, each through its own map in `dir` (dist/cli/).
 */
export function mapBuildStack(stack: string, dir: URL): string {
  let out = stack;
  for (const s of new Set(stack.match(/[\w-]+\.cjs(?=:\d)/g))) out = mapStack(out, new URL(`${s}.map`, dir));
  return out;
}
