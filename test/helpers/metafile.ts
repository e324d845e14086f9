// esbuild's metafile of src/ from some entry points: which file imports which, statically or
// through import(), as the build splits them. Nothing is written to disk.
import path from 'node:path';
import { build, type Metafile } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The import graph esbuild sees from `entryPoints` (packages left external). */
export async function metafileOf(entryPoints: string[]): Promise<Metafile> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outdir: path.join(ROOT, 'dist', 'metafile-unwritten'),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return metafile;
}
