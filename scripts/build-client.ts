/**
 * Compiles the client package (client/: the REST types, the typed caller, verifyWebhook) to JavaScript with
 * declarations in client/dist/, so a plain Node program (no TypeScript loader) can import @browserd/client and
 * a TypeScript one gets its types from the .d.ts files; client/package.json points its exports there.
 * client/dist/ is not committed: it is built here, by `npm run build:client` (the test command runs it; `npm start` does not, as it installs
 * no TypeScript), and is rebuilt whenever a
 * source (or the tsconfig) is newer than what is there, so it cannot lag behind client/*.ts.
 * Run: `node --import tsx scripts/build-client.ts` (`--force` rebuilds even when nothing changed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_DIR = join(root, 'client');
export const CLIENT_DIST = join(CLIENT_DIR, 'dist');

/** The sources the build reads: the package's .ts files (not the built ones), its tsconfig and package.json. */
function sources(): string[] {
  return [...readdirSync(CLIENT_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), 'tsconfig.json', 'package.json'].map((f) => join(CLIENT_DIR, f));
}

/** Every .ts source has its .js and .d.ts in dist/, and none of them is older than the newest source. */
function upToDate(): boolean {
  const built = sources()
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => {
      const base = join(CLIENT_DIST, f.slice(CLIENT_DIR.length + 1, -3));
      return [`${base}.js`, `${base}.d.ts`];
    });
  if (!built.every((f) => existsSync(f))) return false;
  const newestSource = Math.max(...sources().map((f) => statSync(f).mtimeMs));
  return Math.min(...built.map((f) => statSync(f).mtimeMs)) >= newestSource;
}

export function buildClient(opts: { force?: boolean } = {}): { built: boolean } {
  if (!opts.force && upToDate()) return { built: false };
  // Nothing left from an earlier build: a source that was removed or renamed leaves no module behind.
  rmSync(CLIENT_DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(CLIENT_DIR, 'tsconfig.json')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsc -p client/tsconfig.json failed:\n${r.stdout}${r.stderr}`);
  return { built: true };
}

/** TypeScript is a dev dependency: `npm start` installs without it, and the service does not need the client. */
function typescriptInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('typescript/bin/tsc');
    return true;
  } catch {
    return false;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const t0 = Date.now();
  if (!typescriptInstalled()) {
    console.log('client: not built (TypeScript is a dev dependency; `npm ci && npm run build:client` builds client/dist)');
    process.exit(0);
  }
  try {
    const r = buildClient({ force: process.argv.includes('--force') });
    console.log(r.built ? `client: client/*.ts -> client/dist (.js + .d.ts) in ${Date.now() - t0} ms` : 'client: client/dist is up to date');
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
