/** The default browser count follows the memory the daemon may use: a unit's MemoryMax, not the whole host. */
import t from 'tap';
import { defaultMaxBrowsers, usableMemory } from '../../daemon/config.js';

const GB = 1024 ** 3;

t.test("a cgroup limit below the host's memory is what counts", async (t) => {
  t.equal(usableMemory(23 * GB, 8 * GB), 8 * GB, 'MemoryMax=8G on a 23 GB host');
  t.equal(defaultMaxBrowsers(usableMemory(23 * GB, 8 * GB)), 13, 'about 13 browsers fit in 8 GB, not 40');
});

t.test("no limit (0, or Node's 'unlimited' number) leaves the host's memory", async (t) => {
  t.equal(usableMemory(23 * GB, 0), 23 * GB);
  t.equal(usableMemory(23 * GB, 2 ** 64), 23 * GB);
  t.equal(usableMemory(23 * GB, 64 * GB), 23 * GB, 'a limit above the host is no limit');
  t.equal(defaultMaxBrowsers(23 * GB), 39);
});

t.test('at least one browser, however small the box', async (t) => {
  t.equal(defaultMaxBrowsers(100 * 1024 * 1024), 1);
});

t.test("this process's own reading is a number within the host's memory", async (t) => {
  const m = usableMemory();
  t.ok(m > 0 && Number.isFinite(m));
});
