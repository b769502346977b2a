/**
 * The suite's second pass runs on another Node (scripts/check.sh installs Node 24 from the npm registry and sets
 * BROWSERD_TEST_NODE_MAJOR). This proves that pass really ran on that Node and not on the machine's one, and that
 * `auto` picks the server that can serve there, with a reason an operator can read.
 */
import t from 'tap';
import { chooseHttpApp, httpServerFor } from '../../daemon/http/transport/choose.js';
import { loadNativeUws } from '../../daemon/http/transport/uws.js';

const major = Number(process.versions.node.split('.')[0]);
const expected = process.env.BROWSERD_TEST_NODE_MAJOR;

t.test('the Node this file runs on is the one the pass asked for', async (t) => {
  t.comment(`Node ${process.versions.node}`);
  if (!expected) return t.pass('no particular Node asked for (the machine\'s own pass)');
  t.equal(major, Number(expected), `running on Node ${expected}, not the machine's Node`);
});

t.test('auto serves with uWebSockets.js where its build loads, else node:http, and says why', async (t) => {
  const native = loadNativeUws();
  const chosen = httpServerFor('auto');
  t.equal(chosen.kind, 'uws' in native ? 'uws' : 'node');
  t.match(chosen.why, /\S/, 'a reason is given');
  if (chosen.kind === 'node') t.equal(chosen.why, (native as { why: string }).why, 'the reason is why uWebSockets.js did not load');
  // Asking for uWebSockets.js where it cannot load is an error at start, never a quiet change of server.
  if (!('uws' in native)) t.throws(() => chooseHttpApp('uws'), /--http uws/);
  // Whichever serves, it answers a request and closes (the failure this pass exists for: up, then dead).
  const { app } = chooseHttpApp('auto');
  app.any('/*', (res) => void res.cork(() => res.writeStatus('200 OK').end('up')));
  const l = await app.listen('127.0.0.1', 0);
  try {
    const r = await fetch(`http://127.0.0.1:${l.port}/x`);
    t.equal(await r.text(), 'up');
  } finally {
    l.close();
  }
});
