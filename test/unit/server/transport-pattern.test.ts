/** The node:http server matches WebSocket routes by uWS's patterns: `:name` is one segment, a trailing `*` the rest. */
import t from 'tap';
import { matchPattern } from '../../../daemon/http/transport/pattern.js';

t.test('a :name part is one non-empty segment, given back in order', async (t) => {
  t.same(matchPattern('/live/:token/ws', '/live/abc/ws'), ['abc']);
  t.equal(matchPattern('/live/:token/ws', '/live//ws'), undefined, 'an empty segment is no token');
  t.equal(matchPattern('/live/:token/ws', '/live/a/b/ws'), undefined, 'a token is one segment');
  t.equal(matchPattern('/live/:token/ws', '/live/abc/ws/more'), undefined, 'nothing after the pattern');
  t.equal(matchPattern('/live/:token/ws', '/live/abc'), undefined);
});

t.test('a trailing * takes the rest of the path, even nothing', async (t) => {
  t.same(matchPattern('/cdp/*', '/cdp/tok'), []);
  t.same(matchPattern('/cdp/*', '/cdp/a/b'), []);
  t.same(matchPattern('/cdp/*', '/cdp/'), []);
  t.equal(matchPattern('/cdp/*', '/cdpx/tok'), undefined);
  t.equal(matchPattern('/cdp/*', '/v1/cdp/tok'), undefined);
});
