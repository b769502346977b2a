/**
 * The toolsets an MCP connection may ask for (server/toolsets.ts): together they hold every tool exactly once,
 * they name only tools that exist, "all" or no query is every tool, and an unknown name is a validation_error
 * that names the known ones.
 */
import t from 'tap';
import { TOOLS } from '../../../daemon/main.js';
import { TOOLSETS, TOOLSET_ABOUT, toolsetFilter } from '../../../daemon/server/toolsets.js';
import { BrowserdError } from '../../../protocol/errors.js';

t.test('every tool is in exactly one toolset, and every toolset names tools that exist', async (t) => {
  const all = Object.values(TOOLSETS).flat();
  t.same([...all].sort(), [...TOOLS.names()].sort(), 'the sets together are the 75 tools, each once');
  t.equal(new Set(all).size, all.length, 'no tool in two sets');
  for (const [name, tools] of Object.entries(TOOLSETS)) t.ok(tools.length > 0, `${name} is not empty`);
  t.same(Object.keys(TOOLSET_ABOUT).sort(), Object.keys(TOOLSETS).sort(), 'each set has its line for docs/tools.md, and only sets do');
  for (const n of ['core', 'vault', 'crawl', 'records', 'monitors', 'traffic', 'docs', 'handoff', 'live', 'models', 'cdp']) t.ok(TOOLSETS[n], `a ${n} set`);
  for (const n of ['browser_open', 'browser_navigate', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_read']) t.ok(TOOLSETS.core!.includes(n), `core has ${n}`);
});

t.test('no query, or all, is every tool; several sets are their union', async (t) => {
  t.equal(toolsetFilter(undefined), undefined);
  t.equal(toolsetFilter(null), undefined);
  t.equal(toolsetFilter('all'), undefined);
  t.equal(toolsetFilter('core,all'), undefined);
  const f = toolsetFilter('core, vault')!;
  t.same([...f].sort(), [...TOOLSETS.core!, ...TOOLSETS.vault!].sort());
});

t.test('an unknown or empty set name is a validation_error naming the known sets', async (t) => {
  for (const bad of ['core,bogus', '', ',', 'Core', 'constructor', '__proto__']) {
    const e = (() => {
      try {
        toolsetFilter(bad);
      } catch (x) {
        return x;
      }
    })();
    t.ok(e instanceof BrowserdError, `${JSON.stringify(bad)} is refused`);
    t.equal((e as BrowserdError).code, 'validation_error');
    t.match((e as BrowserdError).next, /core, vault, .*cdp, all/, 'the known sets are named');
  }
  t.throws(() => toolsetFilter('core,bogus'), { message: /unknown toolset "bogus"/ });
});
