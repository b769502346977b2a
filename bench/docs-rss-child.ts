/**
 * Child process of bench/docs.ts: converts ONE document and prints its memory as a JSON line, so the numbers
 * belong to this conversion alone. Idle is measured after the converter module is loaded and before the file
 * is read (so the caller's 15 MB buffer counts against the conversion, not the idle). The RSS is sampled every
 * 20 ms on the main thread (idle while a converter thread works) and compared with the kernel's maxRSS.
 * The converter thread starts on this first conversion, as after the daemon's idle timeout: its start is
 * counted too.
 *
 *   node bench/docs-rss-launch.js <file> <name>
 */
import { readFileSync } from 'node:fs';
import { convertDocument } from '../daemon/docs/index.js';
import { closeConverterThreads } from '../daemon/docs/pool.js';

const [file, name] = process.argv.slice(2);
if (!file || !name) {
  console.error('usage: docs-rss-child.ts <file> <name>');
  process.exit(2);
}

const idle = process.memoryUsage().rss;
// Loading the modules through tsx can pass a high-water mark that is gone by now; maxRSS counts only if it grows.
const maxRssAtIdle = process.resourceUsage().maxRSS * 1024;
let peak = idle;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);

const t0 = performance.now();
const bytes = readFileSync(file);
const c = await convertDocument({ converterTimeoutMs: 600_000 }, { bytes, name }, { maxChars: 200_000 });
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
// resourceUsage().maxRSS is in kilobytes: the process's high-water mark, whatever the sampler missed.
const maxRss = process.resourceUsage().maxRSS * 1024;
await closeConverterThreads();
console.log(JSON.stringify({ idle, peak, maxRss, maxRssAtIdle, seconds, parts: c.parts, chars: c.chars, bytes: bytes.length }));
