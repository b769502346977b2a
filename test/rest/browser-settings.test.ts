/**
 * Host-wide browser settings: one validation for every writer (nothing changes on a bad patch), stored across
 * restarts, read by users with their own view, max_browsers enforced at once. No page is loaded here.
 */
import t from 'tap';
import { startTestDaemon } from '../fixtures/daemon.js';

const d = await startTestDaemon({ maxBrowsers: 3 });
t.teardown(() => d.stop());
const admin = await d.daemon.env.users.replaceAdminKey();
const user = await d.addUser('alice');

t.test('defaults: identity off, no ad blocking, sign-up off, the host maximum', async (t) => {
  const r = await d.rest(user, 'GET', '/v1/browser/settings');
  t.equal(r.status, 200);
  t.same(r.json.settings, { profile_enabled: false, profile: null, block_ads: [], max_browsers: 3, signup: false });
  const mine = await d.rest(user, 'GET', '/v1/me');
  t.equal(mine.json.limits.maxBrowsersOnHost, 3);
});

t.test('only the admin key changes them; a user token and no token change nothing', async (t) => {
  t.equal((await d.rest(user, 'PATCH', '/v1/admin/browser-settings', { signup: true })).status, 403);
  t.equal((await d.rest(undefined, 'PATCH', '/v1/admin/browser-settings', { signup: true })).status, 401);
  t.equal((await d.rest(user, 'GET', '/v1/admin/browser-settings')).status, 403);
  t.equal((await d.rest(user, 'GET', '/v1/browser/settings')).json.settings.signup, false);
});

t.test('a bad patch is refused whole and changes nothing', async (t) => {
  const before = (await d.rest(admin, 'GET', '/v1/admin/browser-settings')).json.settings;
  const bad: [unknown, RegExp][] = [
    [{ signup: true, colour: 'blue' }, /unknown key "colour"/],
    [{ signup: 'yes' }, /signup/],
    [{ max_browsers: 0 }, /max_browsers/],
    [{ max_browsers: 2.5 }, /max_browsers/],
    [{ block_ads: ['https://example.com/'] }, /not a URL/],
    [{ block_ads: 'example.com' }, /block_ads/],
    [{ profile_enabled: ['ex*ample.com'] }, /profile_enabled/],
    [{ profile: { hardwareConcurrency: 0 } }, /hardwareConcurrency/],
    [{ profile: { deviceMemory: 3 } }, /deviceMemory/],
    [{ profile: { screen: { width: 1920 } } }, /screen/],
    [{ profile: { webgl: { vendor: 'x', renderer: 'y', extra: 1 } } }, /unknown key "extra"/],
    [{ profile: { humanize: 'no' } }, /humanize/],
    [[1, 2], /JSON object/],
    ['signup', /JSON object/],
  ];
  for (const [patch, why] of bad) {
    const r = await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', patch);
    t.equal(r.status, 400, JSON.stringify(patch));
    t.equal(r.json.error.code, 'validation_error');
    t.match(r.json.error.message, why);
    t.ok(r.json.error.next, 'says what to do');
  }
  t.same((await d.rest(admin, 'GET', '/v1/admin/browser-settings')).json.settings, before, 'nothing changed');
});

t.test('a good patch changes only its keys, is audited by key name, and survives a restart', async (t) => {
  const profile = { hardwareConcurrency: 8, deviceMemory: 8, screen: { width: 1920, height: 1080 }, webgl: { vendor: 'Google Inc. (Intel)', renderer: 'ANGLE (Intel, Intel(R) UHD Graphics 630 Direct3D11 vs_5_0 ps_5_0, D3D11)' }, humanize: false };
  const r = await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { profile_enabled: ['shop.test', '*.news.test'], profile, block_ads: ['ads.test'] });
  t.equal(r.status, 200);
  t.same(r.json.settings, { profile_enabled: ['shop.test', '*.news.test'], profile, block_ads: ['ads.test'], max_browsers: 3, signup: false });
  const second = await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { signup: true });
  t.same(second.json.settings.block_ads, ['ads.test'], 'earlier keys kept');
  const audit = (await d.rest(admin, 'GET', '/v1/admin/audit?limit=50')).json.entries.filter((e: any) => e.tool === 'admin.browser_settings');
  t.ok(audit.length >= 2, 'audited');
  t.notOk(JSON.stringify(audit).includes('Intel'), 'the audit names keys, not values');
  await d.restart();
  const after = await d.rest(user, 'GET', '/v1/browser/settings');
  t.same(after.json.settings.profile_enabled, ['shop.test', '*.news.test']);
  t.equal(after.json.settings.signup, true);
  const s = d.daemon.env.browserSettings;
  t.ok(s.identityAppliesTo('https://shop.test/cart'));
  t.ok(s.identityAppliesTo('https://a.news.test/'));
  t.notOk(s.identityAppliesTo('https://news.test/'), '*.news.test names sub-domains only');
  t.notOk(s.identityAppliesTo('https://other.test/'));
  t.ok(s.blocksAdsOn('https://www.ads.test/page'));
  t.notOk(s.blocksAdsOn('about:blank'));
});

t.test('max_browsers holds at once: the next browser over it is refused with Retry-After', async (t) => {
  const bob = await d.addUser('bob');
  t.equal((await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { max_browsers: 1 })).status, 200);
  const first = await d.rest(user, 'POST', '/v1/tabs', { url: 'about:blank' });
  t.equal(first.status, 201, 'the first browser starts');
  const second = await d.rest(bob, 'POST', '/v1/tabs', { url: 'about:blank' });
  t.equal(second.status, 503);
  t.equal(second.json.error.code, 'browser_capacity');
  t.ok(Number(second.headers.get('retry-after')) > 0);
  t.equal((await d.rest(bob, 'GET', '/v1/me')).json.limits.maxBrowsersOnHost, 1);
  await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { max_browsers: 2 });
  t.equal((await d.rest(bob, 'POST', '/v1/tabs', { url: 'about:blank' })).status, 201, 'raised: it starts');
});
