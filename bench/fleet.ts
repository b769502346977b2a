/**
 * The router's cost: the same users make the same calls for the same time through HAProxy (which reads each
 * call's routing key and looks it up in the map) and straight to their hosts, in one run on one fleet of three
 * hosts. Calls: POST /v1/tools/browser_tabs (dispatch, audit; no page work) and GET /v1/me, `concurrency` at a
 * time per user. Phases alternate (router, direct, router, direct) so warm-up and drift fall on both sides.
 */
import { startFleet, HAPROXY } from '../test/fixtures/fleet.js';
import { median, p90, ms, now, printTable } from './lib.js';

export interface Side {
  calls: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

export interface FleetBenchResult {
  router: Side;
  direct: Side;
  users: number;
  hosts: number;
}

async function phase(targets: { base: string; token: string }[], concurrency: number, durationMs: number, into: Side): Promise<void> {
  const until = Date.now() + durationMs;
  const t0 = now();
  await Promise.all(
    targets.flatMap(({ base, token }) =>
      Array.from({ length: concurrency }, async (_, lane) => {
        for (let i = lane; Date.now() < until; i++) {
          const s = now();
          const r = await fetch(i % 2 ? `${base}/v1/me` : `${base}/v1/tools/browser_tabs`, {
            method: i % 2 ? 'GET' : 'POST',
            headers: { Authorization: `Bearer ${token}`, ...(i % 2 ? {} : { 'Content-Type': 'application/json' }) },
            body: i % 2 ? undefined : '{}',
          });
          await r.arrayBuffer();
          into.latencies.push(now() - s);
          into.calls++;
          if (r.status !== 200) into.errors++;
        }
      }),
    ),
  );
  into.seconds += (now() - t0) / 1000;
}

export async function runFleetBench(opts: { users: number; concurrency: number; phaseMs: number }): Promise<FleetBenchResult> {
  const f = await startFleet(['b1', 'b2', 'b3']);
  try {
    const users: { host: string; token: string }[] = [];
    for (let i = 0; i < opts.users; i++) users.push(await f.fleet.addUser(`bench${i}`));
    const viaRouter = users.map((u) => ({ base: f.routerUrl, token: u.token }));
    const direct = users.map((u) => ({ base: f.hosts.get(u.host)!.run.url, token: u.token }));
    const router: Side = { calls: 0, errors: 0, seconds: 0, latencies: [] };
    const straight: Side = { calls: 0, errors: 0, seconds: 0, latencies: [] };
    for (let round = 0; round < 2; round++) {
      await phase(viaRouter, opts.concurrency, opts.phaseMs, router);
      await phase(direct, opts.concurrency, opts.phaseMs, straight);
    }
    return { router, direct: straight, users: opts.users, hosts: f.hosts.size };
  } finally {
    await f.stop();
  }
}

export async function run(): Promise<void> {
  if (!HAPROXY) {
    console.log('\n## Fleet: not measured (haproxy is not installed: apt-get install haproxy)\n');
    return;
  }
  const r = await runFleetBench({ users: 30, concurrency: 2, phaseMs: 10_000 });
  const row = (name: string, s: Side) => [name, (s.calls / s.seconds).toFixed(0), `${ms(median(s.latencies), 2)} / ${ms(p90(s.latencies), 2)}`, String(s.errors)];
  printTable(
    `Fleet: ${r.users} users on ${r.hosts} hosts, through HAProxy against straight to each user's host`,
    ['path', 'calls/s', 'median / p90 (ms)', 'errors'],
    [row('through HAProxy', r.router), row('straight to the host', r.direct)],
    [`Each user ${2} calls at a time (browser_tabs over REST and GET /v1/me, alternating), 2 x 10 s per side, alternated; all on one machine.`],
  );
}
