/**
 * Bundles the daemon for running: bin/cli.ts -> bin/browserd.bundle.mjs, and the TypeScript worker threads'
 * entries -> bin/markdown-thread.bundle.mjs and bin/docs-worker.bundle.mjs (daemon/threads.ts picks them).
 * Packages stay outside the bundle (node_modules), so this is only our own code, compiled once. Run from the
 * bundle the daemon needs no TypeScript loader at run time: tsx's loader (a hooks thread and a transform cache
 * per thread) cost an idle daemon about 130 MB (bench/memory.ts).
 *
 * bin/browserd.js runs the bundle only while it is newer than every source file it was built from (the list is
 * written beside it, bin/browserd.bundle.inputs.json); after an edit without a build it runs the sources.
 * Run: `node --import tsx scripts/build-daemon.ts` (part of npm run build, after the injected bundle it includes).
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const ENTRIES = [
  { in: 'bin/cli.ts', out: 'bin/browserd.bundle' },
  { in: 'daemon/read/markdown-thread-body.ts', out: 'bin/markdown-thread.bundle' },
  { in: 'daemon/docs/worker-bundled.ts', out: 'bin/docs-worker.bundle' },
];
export const BUNDLE_INPUTS = resolve(root, 'bin/browserd.bundle.inputs.json');

/**
 * V8 keeps every script's source for as long as the process runs, one byte per character while all of them are
 * Latin-1 and two bytes per character for the whole file once one is not: a single CJK or euro sign in a regex
 * or a tagged template (which esbuild cannot escape) doubled the daemon's 1.6 MB source in memory. Write such a
 * character as an escape (\u20ac) or an HTML entity instead; this names where one slipped in.
 */
function assertLatin1(file: string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  for (const [i, line] of lines.entries()) {
    const wide = [...line].find((c) => c.codePointAt(0)! > 0xff);
    if (wide) throw new Error(`${file}:${i + 1}: "${wide}" (U+${wide.codePointAt(0)!.toString(16).toUpperCase()}) is not Latin-1, so V8 would hold the whole bundle's source at two bytes a character; escape it in the source: ${line.trim().slice(0, 120)}`);
  }
}

export async function buildDaemon(): Promise<{ inputs: number; bytes: number }> {
  const r = await build({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    outdir: root,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // daemon/threads.ts: start worker threads from their bundles.
    define: { BROWSERD_BUNDLED: 'true' },
    // Stack traces in the log name bundle lines; the map turns them back into ours (node --enable-source-maps).
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const out of Object.keys(r.metafile.outputs).filter((p) => p.endsWith('.mjs'))) assertLatin1(resolve(root, out));
  const inputs = Object.keys(r.metafile.inputs).filter((p) => !p.startsWith('node_modules/'));
  writeFileSync(BUNDLE_INPUTS, `${JSON.stringify(inputs)}\n`);
  const bytes = Object.entries(r.metafile.outputs).filter(([p]) => p.endsWith('.mjs')).reduce((s, [, o]) => s + o.bytes, 0);
  return { inputs: inputs.length, bytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const t0 = Date.now();
  buildDaemon().then(
    (r) => console.log(`daemon: ${r.inputs} source files -> bin/*.bundle.mjs (${Math.round(r.bytes / 1024)} KB) in ${Date.now() - t0} ms`),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
