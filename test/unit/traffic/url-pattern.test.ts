import t from 'tap';
import { urlMatcher } from '../../../daemon/traffic/url-pattern.js';

t.test('star, globs and substrings', async (t) => {
  t.ok(urlMatcher('*')('https://a.test/anything?x=1'));
  const api = urlMatcher('**/api/*');
  t.ok(api('https://site.test/api/items'));
  t.ok(api('https://site.test/v1/api/items'));
  t.notOk(api('https://site.test/api/items/7'), '* does not cross /');
  t.ok(urlMatcher('**/api/**')('https://site.test/api/items/7?page=2'));
  t.ok(urlMatcher('/api/')('https://site.test/api/items'), 'substring');
  t.notOk(urlMatcher('/API/')('https://site.test/api/items'), 'case-sensitive');
  t.ok(urlMatcher('https://site.test/*.json')('https://site.test/data.json'));
  t.notOk(urlMatcher('https://site.test/*.json')('https://site.test/dataXjson'), 'a dot is a dot');
});
