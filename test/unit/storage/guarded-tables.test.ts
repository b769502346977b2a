/**
 * Every named LMDB database passes the disk-full guard (disk-reserve.ts), as docs/operations.md promises: a store that
 * opened its own database straight from the root wrote past the reserve. Two checks: no source file but
 * storage/db.ts calls `openDB` (the one guarded opener is `db.table`), and at run time every database each
 * store holds refuses an adding write once the disk is "full" (a reserve larger than any disk).
 */
import t from 'tap';
import { repoRoot, sourceFiles } from '../../fixtures/source-files.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../../../storage/db.js';
import { TaskStore } from '../../../storage/tasks.js';
import { ExtractorStore } from '../../../storage/extractors.js';
import { ModelUsageStore } from '../../../storage/model-usage.js';
import { ApiMapStore } from '../../../storage/api-maps.js';
import { ResearchStore } from '../../../storage/research.js';
import { ActionCacheStore } from '../../../storage/action-cache.js';
import { UsageStore } from '../../../storage/usage.js';
import { MonitorStore } from '../../../storage/monitors.js';

const repo = repoRoot;
const sources = sourceFiles;


t.test('no source opens a database but storage/db.ts (stores call db.table)', async (t) => {
  const files = [...sources('storage'), ...sources('daemon')];
  t.ok(files.includes('storage/db.ts') && files.length > 100, 'the walk sees the sources');
  for (const f of files) {
    if (f === 'storage/db.ts') continue;
    const src = readFileSync(join(repo, f), 'utf8');
    t.notMatch(src, /\bopenDB\b|\bopen\(\s*\{\s*path\b/, `${f} opens an LMDB database itself`);
  }
});

t.test('every database a store holds refuses adding writes below the reserve', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-guarded-'));
  const before = process.env.BROWSERD_STORE_RESERVE_MB;
  // First open with no reserve: the schema row and the byte tally are written then.
  process.env.BROWSERD_STORE_RESERVE_MB = '0';
  await openDb(dir).close();
  process.env.BROWSERD_STORE_RESERVE_MB = String(Number.MAX_SAFE_INTEGER / 1024 / 1024);
  let db: Db | undefined;
  t.teardown(async () => {
    if (before === undefined) delete process.env.BROWSERD_STORE_RESERVE_MB;
    else process.env.BROWSERD_STORE_RESERVE_MB = before;
    await db?.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  db = openDb(dir);
  const stores: Record<string, object> = {
    tasks: new TaskStore(db),
    extractors: new ExtractorStore(db),
    modelUsage: new ModelUsageStore(db),
    apiMaps: new ApiMapStore(db),
    research: new ResearchStore(db),
    actionCache: new ActionCacheStore(db),
    usage: new UsageStore(db),
    monitors: new MonitorStore(db),
    userBytes: db.userBytes,
    db,
  };
  let seen = 0;
  for (const [name, store] of Object.entries(stores)) {
    for (const [field, value] of Object.entries(store)) {
      const table = value as { putSync?: unknown; getRange?: unknown } | null;
      if (!table || typeof table.putSync !== 'function' || typeof table.getRange !== 'function') continue;
      seen++;
      let code: unknown;
      try {
        (table.putSync as (k: string, v: unknown) => unknown).call(table, 'guard-probe', 1);
      } catch (e) {
        code = (e as NodeJS.ErrnoException).code;
      }
      t.equal(code, 'ENOSPC', `${name}.${field} refuses an adding write below the reserve`);
    }
  }
  t.ok(seen >= 30, `the walk found the databases (${seen})`);
});
