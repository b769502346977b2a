import t from 'tap';
import { urlMatcher } from '../../../daemon/browser/url-pattern.js';

t.test('star, globs and substrings', async (t) => {
  t.ok(urlMatcher('*')('https://a.test/anything?x=1'));
  const api = urlMatcher('**/api/*');
  t.ok(api('https://site.test/api/items'));
  t.ok(api('https://site.test/v1/api/items'));
  t.ok(api('https://site.test/api/items/7'), 'a single * matches anything, / included');
  t.ok(urlMatcher('https://site.test/*')('https://site.test/a/b/c?d=1'), 'one star after the host takes the whole rest');
  t.ok(urlMatcher('*/orders/*/items')('https://shop.test/v2/orders/17/items'), 'stars on both sides of a path');
  t.notOk(urlMatcher('*/orders/*/items')('https://shop.test/v2/orders/17/items/3'), 'the glob still covers the whole URL');
  t.ok(urlMatcher('**/api/**')('https://site.test/api/items/7?page=2'));
  t.ok(urlMatcher('/api/')('https://site.test/api/items'), 'substring');
  t.notOk(urlMatcher('/API/')('https://site.test/api/items'), 'case-sensitive');
  t.ok(urlMatcher('https://site.test/*.json')('https://site.test/data.json'));
  t.notOk(urlMatcher('https://site.test/*.json')('https://site.test/dataXjson'), 'a dot is a dot');
});
