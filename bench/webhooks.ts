/**
 * Webhook outbox throughput and memory.
 *  - A loopback receiver in a child process (this same file, `--serve`): answers 200 to every POST and counts
 *    them; told over IPC to go down (connections refused) and come back. Apart, so this process's RSS and CPU
 *    are the sender's alone.
 *  - Throughput: EVENTS events through WebhookService.emit (each resolving once its row is flushed to LMDB),
 *    until every row is delivered, against a bare sender: standardwebhooks' sign + fetch POST per event, nothing
 *    stored. Both with the same number of requests in flight (the service's per-receiver concurrency, 4).
 *  - Receiver down: PENDING events emitted while the receiver refuses connections; RSS sampled while they pile
 *    up and after, then the receiver comes back and the time until every row is delivered is measured.
 * Numbers are printed, never asserted. The data dir is removed at the end.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { now, printTable } from './lib.js';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000);
const PENDING = Number(process.env.BENCH_WEBHOOK_PENDING ?? 100_000);
const CONCURRENCY = 4;
/** Emits outstanding at once: sources emit from many calls at a time; LMDB folds their flushes together. */
const EMITTERS = 64;

// ------------------------------------------------------------------ the receiver (child process)

function serveChild() {
  let count = 0;
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          count++;
          res.writeHead(200);
          res.end();
        });
      });
      server.keepAliveTimeout = 10_000;
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  process.on('message', async (m: { op: string }) => {
    if (m.op === 'count') process.send!({ count });
    if (m.op === 'reset') process.send!({ count: (count = 0) });
    if (m.op === 'down') {
      server!.closeAllConnections();
      await new Promise((r) => server!.close(r));
      process.send!({ down: true });
    }
    if (m.op === 'up') {
      await listen();
      process.send!({ up: true });
    }
  });
  void listen().then(() => process.send!({ port }));
}

interface ReceiverChild {
  url: string;
  ask(op: string): Promise<any>;
  close(): void;
}

async function startReceiverChild(): Promise<ReceiverChild> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const first = await new Promise<{ port: number }>((r) => child.once('message', r as any));
  return {
    url: `http://127.0.0.1:${first.port}/hooks`,
    ask: (op) =>
      new Promise((r) => {
        child.once('message', r);
        child.send({ op });
      }),
    close: () => child.kill(),
  };
}

// ------------------------------------------------------------------ the bench

const rssMb = () => process.memoryUsage().rss / 1e6;

async function waitUntil(pred: () => Promise<boolean> | boolean, timeoutMs: number) {
  const end = now() + timeoutMs;
  while (!(await pred())) {
    if (now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `n` calls of `fn(i)`, at most `width` at once. */
async function pooled(n: number, width: number, fn: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

export async function run() {
  const { openDb } = await import('../storage/db.js');
  const { Sealer } = await import('../storage/seal.js');
  const { WebhookStore } = await import('../storage/webhooks.js');
  const { WebhookService } = await import('../daemon/webhooks/service.js');
  const receiver = await startReceiverChild();
  const dir = mkdtempSync(join(tmpdir(), 'browserd-bench-webhooks-'));
  const db = openDb(dir);
  const sealer = new Sealer(randomBytes(32));
  const store = new WebhookStore(db, () => sealer);
  const service = new WebhookService({ store, guard: { allowPrivateNetwork: true }, log: pino({ level: 'silent' }), version: 'bench', perReceiverConcurrency: CONCURRENCY, maxPendingPerReceiver: PENDING + 1000 });
  service.start();
  try {
    const hook = await service.register('bench', { url: receiver.url, events: ['task.finished'] });
    const data = (i: number) => ({ id: `task_${i}`, status: 'done', summary: 'x'.repeat(200) });

    // Warm up both paths (JIT, sockets).
    await pooled(200, EMITTERS, (i) => service.emit('bench', 'task.finished', data(i)));
    await waitUntil(() => service.list('bench')[0]!.pending === 0, 30_000);
    await receiver.ask('reset');

    let t0 = now();
    await pooled(EVENTS, EMITTERS, (i) => service.emit('bench', 'task.finished', data(i)));
    const emitted = now() - t0;
    await waitUntil(() => service.list('bench')[0]!.pending === 0, 300_000);
    const outboxMs = now() - t0;
    const got = (await receiver.ask('count')).count;

    await receiver.ask('reset');
    const wh = new Webhook(hook.secret);
    t0 = now();
    await pooled(EVENTS, CONCURRENCY, async (i) => {
      const id = `msg_${i}`;
      const body = JSON.stringify({ type: 'task.finished', timestamp: new Date().toISOString(), data: data(i) });
      const at = new Date();
      const res = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': wh.sign(id, at, body) }, body });
      await res.arrayBuffer();
    });
    const bareMs = now() - t0;
    const bareGot = (await receiver.ask('count')).count;
    const outboxRate = (EVENTS / outboxMs) * 1000;
    const bareRate = (EVENTS / bareMs) * 1000;
    printTable(
      `webhooks: ${EVENTS} events to a loopback receiver, ${CONCURRENCY} in flight`,
      ['sender', 'received', 'ms', 'events/s'],
      [
        ['outbox (rows flushed to LMDB, then sent)', got, Math.round(outboxMs), outboxRate.toFixed(0)],
        ['bare standardwebhooks sign + fetch', bareGot, Math.round(bareMs), bareRate.toFixed(0)],
      ],
      [`outbox / bare: ${(outboxRate / bareRate).toFixed(2)}x (goal >= 0.5x); all ${EVENTS} emits durable after ${Math.round(emitted)} ms`],
    );

    // ---- 100,000 rows pending while the receiver is down
    await receiver.ask('down');
    await receiver.ask('reset').catch(() => undefined);
    const samples: { at: number; rss: number; pending: number }[] = [];
    const start = now();
    const sample = () => samples.push({ at: now() - start, rss: rssMb(), pending: service.list('bench')[0]!.pending });
    global.gc?.();
    sample();
    const sampler = setInterval(sample, 250);
    await pooled(PENDING, 256, (i) => service.emit('bench', 'task.finished', data(i)));
    const filled = now() - start;
    sample();
    // Held a while with every row pending: the receiver is still down.
    await new Promise((r) => setTimeout(r, 5000));
    sample();
    const whileDown = samples.slice();
    const up = now();
    await receiver.ask('up');
    let firstBack = 0;
    await waitUntil(async () => {
      if (!firstBack && (await receiver.ask('count')).count > 0) firstBack = now() - up;
      return service.list('bench')[0]!.pending === 0;
    }, 1_800_000);
    const drained = now() - up;
    sample();
    clearInterval(sampler);
    const received = (await receiver.ask('count')).count;
    const at = (n: number) => whileDown.find((s) => s.pending >= n);
    const rows = [
      ['before', whileDown[0]!.pending, whileDown[0]!.rss.toFixed(0)],
      ...[10_000, 50_000].map((n) => at(n)).filter(Boolean).map((s) => [`${s!.pending} pending`, s!.pending, s!.rss.toFixed(0)]),
      [`all ${PENDING} queued (${Math.round(filled)} ms)`, whileDown.at(-2)!.pending, whileDown.at(-2)!.rss.toFixed(0)],
      ['5 s later, receiver still down', whileDown.at(-1)!.pending, whileDown.at(-1)!.rss.toFixed(0)],
      ['drained', samples.at(-1)!.pending, samples.at(-1)!.rss.toFixed(0)],
    ];
    const peak = Math.max(...samples.map((s) => s.rss));
    printTable(`webhooks: ${PENDING} rows pending while the receiver is down`, ['when', 'pending', 'RSS MB'], rows, [
      `RSS peak ${peak.toFixed(0)} MB, from ${whileDown[0]!.rss.toFixed(0)} MB before (bodies stay in LMDB, not in memory)`,
      `receiver back: first delivery after ${Math.round(firstBack)} ms (the sender probes a failing receiver on the retry curve), all ${received} delivered after ${Math.round(drained)} ms (${((received / drained) * 1000).toFixed(0)}/s)`,
    ]);
  } finally {
    await service.stop();
    receiver.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) serveChild();
else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
