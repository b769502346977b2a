/** The retry curve: ~1 s, doubling, jittered within ±20 %, never over 30 min apart, given up past 24 h. */
import t from 'tap';
import { afterFailure, DEFAULT_RETRY, retryDelay } from '../../../daemon/webhooks/retry.js';

t.test('doubling from about a second, capped at 30 minutes', async (t) => {
  const mid = () => 0.5;
  t.same([1, 2, 3, 4, 5].map((n) => retryDelay(n, DEFAULT_RETRY, mid)), [1000, 2000, 4000, 8000, 16000]);
  t.equal(retryDelay(11, DEFAULT_RETRY, mid), 1024_000);
  t.equal(retryDelay(12, DEFAULT_RETRY, mid), 30 * 60_000, 'the cap');
  t.equal(retryDelay(60, DEFAULT_RETRY, mid), 30 * 60_000, 'no overflow far out');
  t.equal(retryDelay(60, DEFAULT_RETRY, () => 0.999), 30 * 60_000, 'jitter never passes the cap');
});

t.test('jitter spreads rows that failed together', async (t) => {
  t.equal(retryDelay(1, DEFAULT_RETRY, () => 0), 800);
  t.equal(retryDelay(1, DEFAULT_RETRY, () => 1), 1200);
  const seen = new Set(Array.from({ length: 50 }, () => retryDelay(3)));
  t.ok(seen.size > 10, 'different delays for the same failure count');
  for (const d of seen) t.ok(d >= 3200 && d <= 4800, `${d} within ±20 % of 4 s`);
});

t.test('given up once the next try would fall past 24 h from the event', async (t) => {
  const created = Date.UTC(2026, 0, 1);
  t.same(afterFailure(created, 1, created + 5, DEFAULT_RETRY, () => 0.5), { state: 'pending', nextAt: created + 1005 });
  t.same(afterFailure(created, 40, created + 24 * 3600_000 - 60_000, DEFAULT_RETRY, () => 0.5), { state: 'failed' });
  t.equal(afterFailure(created, 40, created + 23 * 3600_000, DEFAULT_RETRY, () => 0.5).state, 'pending');
});
