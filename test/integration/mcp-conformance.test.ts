/**
 * The generic server scenarios of the official MCP conformance suite (@modelcontextprotocol/conformance), run by
 * its own CLI against a real daemon: initialize, ping, tools/list, logging/setLevel, DNS-rebinding protection and
 * concurrent POST streams. The CLI sends no token, so it talks to the daemon through a loopback proxy that adds
 * one and changes nothing else (test/fixtures/conformance/bearer-proxy.ts).
 */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestDaemon } from '../fixtures/daemon.js';
import { startBearerProxy } from '../fixtures/conformance/bearer-proxy.js';
import { runScenario, type ScenarioRun } from '../fixtures/conformance/run-scenario.js';
import { problems, SCENARIOS } from '../fixtures/conformance/scenarios.js';
import { TOOLS } from '../../daemon/main.js';

const d = await startTestDaemon();
const token = await d.addUser('conformance');
const proxy = await startBearerProxy(d.url, token);
t.teardown(async () => {
  await proxy.stop();
  await d.stop();
});

t.test('the proxy adds the token, keeps Host and Origin, and lets a stream flow as it comes', { timeout: 20_000 }, async (t) => {
  // An upstream that sends one SSE event and holds the stream open until the client has read it: a proxy that
  // buffered the answer would never hand the event over, and this test would time out.
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const got: { authorization?: string; host?: string; origin?: string; body: string }[] = [];
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      got.push({ authorization: req.headers.authorization, host: req.headers.host, origin: req.headers.origin, body });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      await released;
      res.end('data: last\n\n');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const p = await startBearerProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, 'bd_stream');
  t.teardown(async () => {
    await p.stop();
    upstream.close();
  });
  const res = await fetch(`${p.url}/mcp?x=1`, { method: 'POST', headers: { Origin: 'http://localhost:9' }, body: '{"a":1}' });
  t.equal(res.headers.get('content-type'), 'text/event-stream');
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  t.equal(first, 'data: first\n\n', 'the first event arrived while the upstream still held the stream open');
  release();
  let rest = '';
  for (let c = await reader.read(); !c.done; c = await reader.read()) rest += new TextDecoder().decode(c.value);
  t.equal(rest, 'data: last\n\n');
  t.same(got, [{ authorization: 'Bearer bd_stream', host: new URL(p.url).host, origin: 'http://localhost:9', body: '{"a":1}' }]);
  t.match(p.seen, [{ method: 'POST', path: '/mcp?x=1' }]);
});

const runs = new Map<string, ScenarioRun>();

for (const scenario of Object.keys(SCENARIOS)) {
  t.test(`conformance scenario ${scenario} passes`, async (t) => {
    const run = await runScenario(`${proxy.url}/mcp`, scenario);
    runs.set(scenario, run);
    const wrong = problems(run);
    t.same(wrong, [], `${scenario}: every check passes${wrong.length ? `\n${run.output.slice(-3000)}` : ''}`);
  });
}

t.test('the scenarios reached the daemon itself, through the proxy, as sent', async (t) => {
  const tools = runs.get('tools-list')?.checks.find((c) => c.id === 'tools-list');
  const listed = (tools?.details?.tools as string[] | undefined) ?? [];
  t.same([...listed].sort(), TOOLS.names().sort(), 'tools/list as the suite saw it holds every registered tool');

  // The forged Host went through untouched and the daemon's own Host check refused it (the proxy never answers
  // 4xx itself), while the localhost request got the daemon's real initialize answer.
  const rebinding = runs.get('dns-rebinding-protection')?.checks ?? [];
  const rejected = rebinding.find((c) => c.id === 'localhost-host-rebinding-rejected')?.details as any;
  t.equal(rejected?.statusCode, 403);
  t.equal(rejected?.body?.error?.code, 'forbidden');
  t.match(rejected?.body?.error?.message, /Host "evil\.example\.com"/);
  t.ok(proxy.seen.some((r) => r.host === 'evil.example.com'), 'the proxy passed the forged Host on');
  const accepted = rebinding.find((c) => c.id === 'localhost-host-valid-accepted')?.details as any;
  t.equal(accepted?.body?.result?.serverInfo?.name, 'browserd');
});

t.test('the run can fail: without the token the localhost check of the rebinding scenario fails', async (t) => {
  // Straight at the daemon, no proxy: the daemon wants a token on every request, so the request that should be
  // accepted gets 401. This proves the verdict reads a failing check as a failure, not only that all is well.
  const run = await runScenario(`${d.url}/mcp`, 'dns-rebinding-protection');
  t.equal(run.exitCode, 1, 'the CLI reports the failure');
  const accepted = run.checks.find((c) => c.id === 'localhost-host-valid-accepted');
  t.equal(accepted?.status, 'FAILURE');
  t.equal((accepted?.details as any)?.statusCode, 401);
  t.match(problems(run), [/the CLI exited with 1/, /localhost-host-valid-accepted: FAILURE/]);
});

t.test('a CLI that does not run is a failure, not an empty pass', async (t) => {
  // An unknown scenario makes the CLI stop before it writes anything: no checks must not read as no failures.
  const run = await runScenario(`${proxy.url}/mcp`, 'no-such-scenario');
  t.not(run.exitCode, 0);
  t.same(run.checks, []);
  t.match(problems(run), [/the CLI exited with/, /the CLI wrote no checks/]);
});
