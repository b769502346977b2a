#!/usr/bin/env node
// The browserd command. `npm run build` (run by `npm start` and the tests) bundles our TypeScript into
// bin/browserd.bundle.mjs (scripts/build-daemon.ts), which runs on plain Node. While any source file it was
// built from is newer than the bundle (an edit without a build), the sources run through tsx's loader instead.
import { readFileSync, statSync } from 'node:fs';

const here = new URL('./', import.meta.url);
const root = new URL('../', import.meta.url);

function bundleIsFresh() {
  try {
    const built = statSync(new URL('browserd.bundle.mjs', here)).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL('browserd.bundle.inputs.json', here), 'utf8'));
    return inputs.every((p) => statSync(new URL(p, root)).mtimeMs <= built);
  } catch {
    // No bundle yet, or a source it names is gone: the sources are the truth.
    return false;
  }
}

if (bundleIsFresh()) {
  await import('./browserd.bundle.mjs');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli.ts');
}
