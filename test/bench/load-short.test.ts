/**
 * The load bench's promises, short (about 20 s, 2 users x 2 sessions), on the same code `npm run bench -- --only
 * load` runs: no call answered with an error, every call answered, as many audit entries as acknowledged calls,
 * and the daemon still serving afterwards. No time is asserted: the machine is shared.
 */
import t from 'tap';
import { runLoad } from '../../bench/load.js';

t.test('a short load run: no errors, every answered call audited, still serving', async (t) => {
  const r = await runLoad({ users: 2, concurrency: 2, durationMs: 20_000, sampleEveryMs: 2000 });
  t.same(Object.fromEntries(r.errors), {}, `no error answers (${r.errorSamples.join(' | ')})`);
  t.equal(r.unanswered, 0, 'every call got an answer');
  // A run that did nothing would pass the checks below trivially; the mix must have reached every tool.
  for (const tool of ['browser_open', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_read_text', 'browser_query']) {
    t.ok((r.latencies.get(tool)?.length ?? 0) > 0, `${tool} was called and answered`);
  }
  t.ok(r.acknowledged > 20, `calls were made (${r.acknowledged})`);
  t.equal(r.audited, r.acknowledged, 'audit entries == acknowledged calls');
  t.ok(r.stillServing, 'each user lists its tabs and snapshots its page after the load');
  t.ok(r.samples.some((s) => s.chromiumProcs > 0), 'the Chromiums were sampled while they ran');
});
