/**
 * The one REST validator (route-input.ts) says what the hand-written checks it replaced said: the same messages
 * and next steps for limits, enums, cursors, days and ids, defaults filled, empty status/state left out.
 */
import t from 'tap';
import { routeInput } from '../../../daemon/server/route-input.js';
import { routeKey } from '../../../daemon/server/routes.js';
import { ROUTES } from '../../../daemon/main.js';
import { BrowserdError } from '../../../protocol/errors.js';

const route = (key: string) => ROUTES.find((r) => routeKey(r) === key)!;
const run = (key: string, params: string[], query = '') => routeInput(route(key), params, new URLSearchParams(query));
/** The checked path and query (the input's body readers aside). */
const pq = (i: { params: unknown; query: unknown }) => ({ params: i.params, query: i.query });
const ID = 'crawl_00112233aabbccdd';

function refuses(t: Pick<typeof import('tap').default, 'throws' | 'equal' | 'fail'>, f: () => unknown, message: string, next: string) {
  try {
    f();
    t.fail(`no error for ${message}`);
  } catch (e) {
    t.equal((e as BrowserdError).code, 'validation_error');
    t.equal((e as BrowserdError).message, message);
    t.equal((e as BrowserdError).next, next);
  }
}

t.test('crawl ids, limits, statuses, formats and cursors: the messages the crawl routes gave', async (t) => {
  refuses(t, () => run('GET /v1/crawls/{id}', ['crawl_123']), '"crawl_123" is not a crawl id', 'Use the id POST /v1/crawls answered: crawl_ and 16 hex digits (GET /v1/crawls lists yours).');
  refuses(t, () => run('GET /v1/crawls/{id}/items', [ID], 'limit=1e2'), 'limit must be a whole number from 1 to 500', 'Pass ?limit=100.');
  refuses(t, () => run('GET /v1/crawls', [], 'limit=501'), 'limit must be a whole number from 1 to 500', 'Pass ?limit=50.');
  refuses(t, () => run('GET /v1/crawls/{id}/items', [ID], 'status=DONE'), 'status must be one of done, failed, blocked', 'Pass ?status=done, or leave it out for every item.');
  refuses(t, () => run('GET /v1/crawls/{id}/export', [ID], 'format='), 'format must be one of jsonl, csv, json', 'Pass ?format=jsonl, ?format=csv or ?format=json.');
  refuses(t, () => run('GET /v1/crawls', [], 'cursor='), 'the cursor is empty', 'Pass the cursor from your previous page unchanged, or omit it to start at the beginning.');
  t.same(run('GET /v1/crawls/{id}/export', [ID], 'status=').query, { format: 'jsonl' }, 'the default format filled; an empty status is no status');
  t.same(pq(run('GET /v1/crawls/{id}/items', [ID], 'limit=3&status=failed&other=1')), { params: { id: ID }, query: { limit: 3, status: 'failed' } }, 'numbers as numbers; unknown keys ignored');
});

t.test('webhooks, caches, audit, tasks and usage', async (t) => {
  refuses(t, () => run('GET /v1/webhooks/{id}/deliveries', ['wh_0011223344556677'], 'limit=0'), 'limit must be a whole number from 1 to 100', 'Pass ?limit=20.');
  refuses(t, () => run('DELETE /v1/caches/{name}', ['a%20b']), '"a b" is not a cache name', 'Cache names are 1-64 letters, digits, ".", "_" or "-" (GET /v1/caches lists yours).');
  refuses(t, () => run('GET /v1/audit', [], 'limit=0'), 'limit must be a whole number from 1 to 500', 'Pass ?limit=50.');
  refuses(t, () => run('GET /v1/admin/audit', [], 'limit=10001'), 'limit must be a whole number from 1 to 10000', 'Pass ?limit=100.');
  refuses(t, () => run('GET /v1/tasks/{id}', ['task_1'], 'waitS=soon'), 'waitS must be a whole number from 0 to 60', 'Pass ?waitS=30, or leave it out.');
  refuses(t, () => run('GET /v1/usage', [], 'from=2026-13-01'), 'from must be a day as YYYY-MM-DD, not "2026-13-01"', 'Pass from=2026-01-31, or leave it out.');
  refuses(t, () => run('GET /v1/usage', [], 'to=yesterday'), 'to must be a day as YYYY-MM-DD, not "yesterday"', 'Pass to=2026-01-31, or leave it out.');
  t.same(pq(run('GET /v1/tasks/{id}', ['task%5F1'], 'waitS=5')), { params: { id: 'task_1' }, query: { waitS: 5 } }, 'segments decoded');
});

t.test('a segment that does not decode is refused with the route\'s own next step', async (t) => {
  refuses(t, () => run('GET /v1/files/{name}', ['%E0%A4%A']), '"%E0%A4%A" is not a valid URL path segment', 'Percent-encode the name correctly.');
  refuses(t, () => run('DELETE /v1/crawls/{id}', ['%E0%A4%A']), '"%E0%A4%A" is not a valid URL path segment', 'Use the id POST /v1/crawls answered: crawl_ and 16 hex digits (GET /v1/crawls lists yours).');
  t.same(pq(run('GET /v1/me', [])), { params: {}, query: {} }, 'a route without schemas gets empty input');
});
