/**
 * Where each worker thread starts. Run from source (tsx), a thread starts from its plain-JavaScript entry next
 * to its code, which registers tsx itself. Run from the bundle `npm run build` makes (scripts/build-daemon.ts),
 * it starts from its own bundle in bin/: no TypeScript loader in the thread, which costs it tens of MB.
 * Both the bundle (bin/) and this file (daemon/) sit one folder below the repository root, so ROOT is the same
 * from either.
 */

/** Replaced by `true` when esbuild bundles the daemon (scripts/build-daemon.ts); absent when run from source. */
declare const BROWSERD_BUNDLED: boolean | undefined;

const ROOT = new URL('../', import.meta.url);

export const THREAD_ENTRIES = {
  /** HTML to Markdown for browser_read and crawls (daemon/read/markdown-pool.ts). */
  markdown: { source: 'daemon/read/markdown-thread.js', bundled: 'bin/markdown-thread.bundle.mjs' },
  /** Document converters, a piscina pool (daemon/docs/pool.ts). */
  docs: { source: 'daemon/docs/worker.js', bundled: 'bin/docs-worker.bundle.mjs' },
  /** The ad-block filter-list parse (daemon/adblock/service.ts): plain JavaScript either way. */
  adblockParse: { source: 'daemon/adblock/parse-thread.js', bundled: 'daemon/adblock/parse-thread.js' },
} as const;

export const runningBundled = typeof BROWSERD_BUNDLED !== 'undefined' && BROWSERD_BUNDLED === true;

export function threadEntry(name: keyof typeof THREAD_ENTRIES): URL {
  const entry = THREAD_ENTRIES[name];
  return new URL(runningBundled ? entry.bundled : entry.source, ROOT);
}
