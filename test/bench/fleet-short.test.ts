/**
 * The fleet bench's promises, short (a second a phase, 6 users), on the code `npm run bench -- --only fleet`
 * runs: both sides measured, every call answered 200 through the router and straight to the host. No time is
 * asserted: the machine is shared.
 */
import t from 'tap';
import { HAPROXY } from '../fixtures/fleet.js';
import { runFleetBench } from '../../bench/fleet.js';

t.test('a short fleet bench: both paths measured, no error', { skip: HAPROXY ? false : 'haproxy is not installed on this host' }, async (t) => {
  const r = await runFleetBench({ users: 6, concurrency: 2, phaseMs: 1000 });
  t.ok(r.router.calls > 20, `calls through HAProxy (${r.router.calls})`);
  t.ok(r.direct.calls > 20, `calls straight to the hosts (${r.direct.calls})`);
  t.equal(r.router.errors, 0, 'none failed through the router');
  t.equal(r.direct.errors, 0, 'none failed straight');
});
