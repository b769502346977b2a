/** The draw: every index of the table is a different, self-consistent identity; a host never hands one out twice. */
import t from 'tap';
import { drawIdentity, identityKey } from '../../../daemon/identity/draw.js';
import { identityAt, TABLE_SIZE } from '../../../daemon/identity/table.js';
import { chromiumBrands } from '../../../daemon/identity/user-agent.js';

t.test('every identity in the table differs and goes together', async (t) => {
  const keys = new Set<string>();
  for (let i = 0; i < TABLE_SIZE; i++) {
    const id = identityAt(i);
    keys.add(identityKey(id));
    const mac = id.platform === 'MacIntel';
    if (mac !== (id.userAgentMetadata.platform === 'macOS')) t.fail(`platforms disagree at ${i}`);
    if (/Apple M/.test(id.webgl.renderer) !== (id.userAgentMetadata.architecture === 'arm')) t.fail(`GPU and architecture disagree at ${i}`);
    if (!(id.screen.availHeight < id.screen.height)) t.fail(`no OS inset at ${i}`);
  }
  t.equal(keys.size, TABLE_SIZE);
});

t.test('draws never repeat, and the last free ones are still found; then the table is full', async (t) => {
  const free = new Set([7, Math.floor(TABLE_SIZE / 2), TABLE_SIZE - 1].map((i) => identityKey(identityAt(i))));
  const taken = new Set<string>();
  for (let i = 0; i < TABLE_SIZE; i++) {
    const key = identityKey(identityAt(i));
    if (!free.has(key)) taken.add(key);
  }
  for (let n = 0; n < free.size; n++) {
    const key = identityKey(drawIdentity(taken).identity);
    t.ok(free.has(key) && !taken.has(key), 'a free one');
    taken.add(key);
  }
  t.equal(taken.size, TABLE_SIZE);
  t.throws(() => drawIdentity(taken), { code: 'refused' });
});

t.test("Chromium's own brand list for its major version", async (t) => {
  // As Chromium 156 sends it by itself (checked against the browser in test/tools/identity.test.ts too).
  t.same(chromiumBrands('156.0.8078.108').brands, [{ brand: 'Not:A-Brand', version: '8' }, { brand: 'Chromium', version: '156' }]);
});
