/**
 * "A 500 MB download adds nothing": the daemon's memory while a page download of 500 MB is stored.
 *  - A loopback server in a child process (this same file, `--serve`) streams a 500 MB attachment generated
 *    chunk by chunk as the socket drains (never held whole), and a page linking to it. It runs apart so that
 *    this process's RSS is the daemon's alone (plus the MCP client): the bytes still cross this process, since
 *    Chromium reaches even loopback through the daemon's egress proxy.
 *  - A test daemon in this process; over MCP the page is opened, the link clicked (its ref from
 *    browser_snapshot), and browser_downloads polled every 250 ms (over REST, for its JSON) until big.bin is listed whole. The RSS of
 *    this process is sampled every 20 ms from just before the click until then: idle, peak, peak - idle.
 *  - Twice: the second download of the same bytes must end as one file (addFile hashes the new copy streamed
 *    and drops it), so it shows what the dedupe costs.
 *  - For scale: the same 500 MB from the same server by a plain Node http GET piped to a file (this machine's
 *    limit for getting those bytes to disk, with no browser and no proxy in between).
 * Numbers are printed, never asserted. Everything it writes (the raw copy, the daemon's data dir) is removed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, get, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TestDaemon } from '../test/fixtures/daemon.js';
import type { DownloadOutcome } from '../daemon/browser/downloads.js';
import { now, printTable } from './lib.js';

/**
 * 500 MB; BENCH_DOWNLOAD_MB sets another size (the child server inherits it) to see whether the growth follows
 * the size (it should not). Past the daemon's download cap (1024 MiB by default) the download is cancelled.
 */
const SIZE = Number(process.env.BENCH_DOWNLOAD_MB ?? 500) * 1000 * 1000;
/** The server's write size: one chunk is made only when the previous one has been taken by the socket. */
const CHUNK = 1024 * 1024;
const NAME = 'big.bin';
const POLL_MS = 250;
const SAMPLE_MS = 20;
/** Longest wait for one download to be listed whole; far beyond the few seconds it takes. */
const DOWNLOAD_TIMEOUT_MS = 120_000;
const USER = 'bench';

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const rate = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(0);

// ------------------------------------------------------------------ the server (child process)

/**
 * Chunk i of the attachment: a fixed pseudo-random block with i in its first bytes, so every chunk differs,
 * both downloads get the very same bytes, and nothing compresses or repeats for anyone to shortcut.
 */
function chunkMaker(): (i: number, length: number) => Buffer {
  const block = Buffer.alloc(CHUNK);
  let seed = createHash('sha256').update('browserd download bench').digest();
  for (let off = 0; off < CHUNK; off += seed.length) {
    seed.copy(block, off);
    seed = createHash('sha256').update(seed).digest();
  }
  return (i, length) => {
    const b = Buffer.allocUnsafe(length);
    block.copy(b, 0, 0, length);
    b.writeUInt32BE(i, 0);
    return b;
  };
}

async function streamAttachment(res: ServerResponse) {
  const make = chunkMaker();
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(SIZE), 'content-disposition': `attachment; filename="${NAME}"` });
  let sent = 0;
  for (let i = 0; sent < SIZE && !res.destroyed; i++) {
    const n = Math.min(CHUNK, SIZE - sent);
    sent += n;
    if (!res.write(make(i, n))) {
      await new Promise<void>((resolve) => {
        const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end();
}

async function serve() {
  const server = createServer((req, res) => {
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Big download</title></head><body><h1>Big download</h1><a href="/${NAME}">Get the big file</a></body></html>`);
    } else if (req.url === `/${NAME}`) {
      void streamAttachment(res);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.send!({ port: (server.address() as AddressInfo).port });
  // Ends with its parent, whatever becomes of it.
  process.on('disconnect', () => process.exit(0));
}

const THIS_FILE = fileURLToPath(import.meta.url);
if (process.argv[1] === THIS_FILE && process.argv.includes('--serve')) await serve();

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(THIS_FILE, ['--serve'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`the download server exited (${code}) before it listened`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

// ------------------------------------------------------------------ measuring

interface Peak {
  idle: number;
  peak: number;
  peakHeap: number;
  peakArrayBuffers: number;
  idleHeap: number;
  idleArrayBuffers: number;
  samples: number;
  /** Peak RSS by phase, when the caller names phases (where the growth happens, if it does). */
  byPhase: Record<string, { peak: number; firstMs: number; lastMs: number }>;
}

/**
 * Samples this process's memory every 20 ms until stopped; the first sample is taken at once (idle). `phase`
 * names what is going on at each sample, so a peak can be placed (Chromium receiving, or our hash and move).
 */
function sampleMemory(phase: () => string = () => 'all'): { stop(): Peak } {
  const m0 = process.memoryUsage();
  const t0 = now();
  const p: Peak = { idle: m0.rss, peak: m0.rss, idleHeap: m0.heapUsed, peakHeap: m0.heapUsed, idleArrayBuffers: m0.arrayBuffers, peakArrayBuffers: m0.arrayBuffers, samples: 1, byPhase: {} };
  let stopped = false;
  const take = () => {
    const m = process.memoryUsage();
    p.peak = Math.max(p.peak, m.rss);
    p.peakHeap = Math.max(p.peakHeap, m.heapUsed);
    p.peakArrayBuffers = Math.max(p.peakArrayBuffers, m.arrayBuffers);
    p.samples++;
    const at = now() - t0;
    const ph = (p.byPhase[phase()] ??= { peak: m.rss, firstMs: at, lastMs: at });
    ph.peak = Math.max(ph.peak, m.rss);
    ph.lastMs = at;
  };
  const timer = setInterval(take, SAMPLE_MS);
  return {
    stop() {
      if (!stopped) {
        clearInterval(timer);
        take();
        stopped = true;
      }
      return p;
    },
  };
}

interface Listing { files: { name: string; size: number }[]; inProgress: { name: string; receivedBytes: number }[] }

/**
 * browser_downloads through REST: the same tool and dispatch as over MCP, where its values come back as
 * JSON (over MCP they are text only).
 */
async function listing(d: TestDaemon, token: string): Promise<Listing> {
  const r = await d.rest(token, 'POST', '/v1/tools/browser_downloads', {});
  if (r.status !== 200) throw new Error(`browser_downloads failed: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
  return r.json as Listing;
}

async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r: any = await client.callTool({ name, arguments: args });
  const text = (r.content ?? []).filter((c: any) => c.type === 'text').map((c: any) => c.text).join('\n');
  if (r.isError) throw new Error(`${name}: ${text.slice(0, 500)}`);
  return text;
}

interface Download { ms: number; mem: Peak; outcome: DownloadOutcome; files: Listing['files']; polls: number }

/**
 * One click on the link, measured until browser_downloads lists big.bin whole with nothing under way. The
 * watcher's 'settled' event is also required (read in this process, it is the daemon's own): the second
 * download changes nothing in the listing, so without it a poll before Chromium even began would count as done.
 */
async function downloadOnce(d: TestDaemon, token: string, client: Client): Promise<Download> {
  const snap = await callOk(client, 'browser_snapshot');
  const ref = /link "Get the big file".*\[ref=((?:f\d+:)?e\d+)\]/.exec(snap)?.[1];
  if (!ref) throw new Error(`no link in the snapshot:\n${snap.slice(0, 1000)}`);
  const watcher = d.daemon.env.pool.peek(USER)?.downloads;
  if (!watcher) throw new Error('the browser has no download watcher');
  let outcome: DownloadOutcome | undefined;
  watcher.once('settled', (o: DownloadOutcome) => (outcome = o));

  // The watcher lists a download from Chromium's downloadWillBegin until its last progress event; after that,
  // until 'settled', the daemon is hashing the staged copy and moving (or dropping) it.
  let began = false;
  const phase = () => {
    if (outcome) return 'settled';
    if (watcher.inProgress().length) return (began = true), 'receiving';
    return began ? 'hash+move' : 'click';
  };
  const mem = sampleMemory(phase);
  const t0 = now();
  try {
    await callOk(client, 'browser_click', { ref });
    for (let polls = 1; ; polls++) {
      const l = await listing(d, token);
      const whole = l.files.some((f) => f.name === NAME && f.size === SIZE);
      if (outcome && whole && !l.inProgress.length) return { ms: now() - t0, mem: mem.stop(), outcome, files: l.files, polls };
      if (outcome && outcome.state !== 'stored') throw new Error(`the download was not stored: ${JSON.stringify(outcome)}`);
      if (now() - t0 > DOWNLOAD_TIMEOUT_MS) throw new Error(`not stored after ${DOWNLOAD_TIMEOUT_MS} ms: ${JSON.stringify(l).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    mem.stop();
  }
}

/** The same bytes by a plain GET piped to a file: no browser, no proxy, no hashing. */
async function rawCopy(url: string, path: string): Promise<{ ms: number; mem: Peak }> {
  const mem = sampleMemory();
  const t0 = now();
  try {
    await new Promise<void>((resolve, reject) => {
      get(`${url}/${NAME}`, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`raw GET: ${res.statusCode}`));
        pipeline(res, createWriteStream(path)).then(resolve, reject);
      }).on('error', reject);
    });
    const ms = now() - t0;
    if (statSync(path).size !== SIZE) throw new Error(`raw GET wrote ${statSync(path).size} bytes`);
    return { ms, mem: mem.stop() };
  } finally {
    mem.stop();
  }
}

// ------------------------------------------------------------------ the run

export async function run(): Promise<void> {
  const { startTestDaemon } = await import('../test/fixtures/daemon.js');
  const dir = mkdtempSync(join(tmpdir(), 'browserd-bench-dl-'));
  const server = await startServer();
  try {
    const d = await startTestDaemon();
    const downloads: Download[] = [];
    let storedNames: string[] = [];
    try {
      const token = await d.addUser(USER);
      const client = await d.mcp(token);
      await callOk(client, 'browser_open', { url: `${server.url}/page` });
      for (let i = 0; i < 2; i++) downloads.push(await downloadOnce(d, token, client));
      storedNames = downloads[1]!.files.map((f) => f.name);
    } finally {
      await d.stop(); // removes the daemon's data dir, the stored file with it
    }
    // After the daemon, so whatever this copy leaves in the process cannot raise the daemon's idle line.
    const raw = await rawCopy(server.url, join(dir, 'raw.bin'));
    rmSync(join(dir, 'raw.bin'), { force: true });

    const row = (label: string, x: { ms: number; mem: Peak }) => [
      label,
      `${mb(x.mem.idle)} MB`,
      `${mb(x.mem.peak)} MB`,
      `${mb(x.mem.peak - x.mem.idle)} MB`,
      `${mb(x.mem.peakHeap - x.mem.idleHeap)} / ${mb(x.mem.peakArrayBuffers - x.mem.idleArrayBuffers)} MB`,
      `${(x.ms / 1000).toFixed(2)} s`,
      rate(SIZE, x.ms),
    ];
    const [first, second] = downloads as [Download, Download];
    /** Where the peak was: each phase's time span and its peak over idle. */
    const phases = (x: Download) =>
      ['click', 'receiving', 'hash+move', 'settled']
        .filter((k) => x.mem.byPhase[k])
        .map((k) => {
          const ph = x.mem.byPhase[k]!;
          return `${k} ${(ph.firstMs / 1000).toFixed(2)}-${(ph.lastMs / 1000).toFixed(2)} s +${mb(ph.peak - x.mem.idle)} MB`;
        })
        .join('; ');
    printTable(
      `A ${mb(SIZE)} MB page download (daemon process RSS, sampled every ${SAMPLE_MS} ms from the click until browser_downloads lists it)`,
      ['run', 'idle RSS', 'peak RSS', 'peak - idle', 'heap / buffers growth', 'wall', 'MB/s'],
      [
        row(`browserd, 1st download (stored as "${first.outcome.file?.name}")`, first),
        row(`browserd, 2nd download, same bytes (${second.outcome.file?.existing ? `kept one copy: "${second.outcome.file.name}"` : 'NOT deduplicated'})`, second),
        row('plain Node http GET piped to a file, same server (this machine\'s limit)', raw),
      ],
      [
        `goal: a 500 MB download adds nothing.${SIZE !== 500e6 ? ` (this run: ${mb(SIZE)} MB, set by BENCH_DOWNLOAD_MB)` : ''} Daemon peak - idle: ${mb(first.mem.peak - first.mem.idle)} MB first, ${mb(second.mem.peak - second.mem.idle)} MB for the deduplicated second (a few tens of MB is the goal; printed, not asserted).`,
        `by phase (time from the click, peak RSS over idle): 1st: ${phases(first)}. 2nd: ${phases(second)}.`,
        `files after both downloads: ${storedNames.map((n) => `"${n}"`).join(', ') || 'none'} (${storedNames.filter((n) => n.startsWith('big')).length === 1 ? 'one file, as promised' : 'MORE THAN ONE: the dedupe did not hold'}).`,
        `browserd's wall time runs from the click to the poll that sees the file stored: it includes Chromium writing the staged file, the egress proxy relaying every byte through this process, the streamed sha-256 and the move, plus up to ${POLL_MS} ms of polling (${first.polls} and ${second.polls} polls).`,
        'The server is a child process, so the RSS above is the daemon (with the MCP client) alone; the raw GET row is this same process after the daemon stopped.',
        'Writes land in the page cache (no fsync on either side), so MB/s is memory-bound more than disk-bound on a machine with free RAM.',
      ],
    );
  } finally {
    server.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
