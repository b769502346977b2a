// Entry of the thread that parses the filter lists (about half a second of CPU for EasyList and EasyPrivacy):
// off the daemon's main thread, which serves CDP, MCP and every tab's paused requests meanwhile. Plain
// JavaScript, like markdown-thread.js, so it loads without a TypeScript loader; it needs only the engine.
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { FiltersEngine } from '@ghostery/adblocker';

const { paths, options } = workerData;
try {
  const t0 = performance.now();
  // One text, so an exception (@@) in one list lifts a rule of another.
  const text = paths.map((p) => readFileSync(p, 'utf8')).join('\n');
  const engine = FiltersEngine.parse(text, options);
  const serialized = engine.serialize();
  parentPort.postMessage({ serialized, parseMs: performance.now() - t0 }, [serialized.buffer]);
} catch (e) {
  parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
}
