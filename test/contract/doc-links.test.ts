/**
 * Every relative link in README.md and docs/ reaches a file of the repository, and a #fragment reaches a heading
 * of the page it names (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens).
 */
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { docFiles, ROOT } from '../fixtures/doc-blocks.js';

/** Outside fenced blocks only: code may hold anything that looks like a link. */
function prose(text: string): string {
  return text.replace(/^```[^]*?^```/gm, '');
}

function anchors(file: string): Set<string> {
  const out = new Set<string>();
  for (const m of prose(readFileSync(join(ROOT, file), 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    out.add(m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
  }
  return out;
}

for (const file of docFiles()) {
  t.test(file, async (t) => {
    const links = [...prose(readFileSync(join(ROOT, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) {
      const [path, fragment] = link.split('#') as [string, string | undefined];
      const target = path ? normalize(join(dirname(file), path)) : file;
      t.ok(existsSync(join(ROOT, target)), `${file}: ${link} names a file that exists`);
      if (fragment && target.endsWith('.md') && existsSync(join(ROOT, target))) t.ok(anchors(target).has(fragment), `${file}: ${link} names a heading of ${target}`);
    }
  });
}
