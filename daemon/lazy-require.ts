/**
 * A package loaded on its first use instead of at start, for code that must stay synchronous. Packages that
 * only some features use (the GraphQL parser, snippet exporters, the TOTP and cursor-path libraries) held
 * several MB of heap in every idle daemon. The package must ship CommonJS (require); an ESM-only one is
 * loaded with `await import()` where it is used instead.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
