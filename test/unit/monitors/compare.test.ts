/** Comparing checks: lines after ignore, snapshots without refs, screenshots by the share of changed pixels. */
import t from 'tap';
import { PNG } from 'pngjs';
import { comparableText, compareScreenshots, compareText, ignoreMatchers, snapshotForCompare } from '../../../daemon/monitors/compare.js';

/** A white w x h PNG with the first `dark` pixels black. */
function png(w: number, h: number, dark: number): Buffer {
  const p = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) {
    const v = i < dark ? 0 : 255;
    p.data[i * 4] = v;
    p.data[i * 4 + 1] = v;
    p.data[i * 4 + 2] = v;
    p.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(p);
}

t.test('ignore drops whole lines before the diff', async (t) => {
  const ignore = ignoreMatchers(['^Updated \\d+ min', 'visitors$']);
  const a = comparableText('Title\nUpdated 3 min ago\nPrice 10\n  \n1234 visitors', ignore);
  const b = comparableText('Title\nUpdated 9 min ago\nPrice 10\n99 visitors', ignore);
  t.equal(a, 'Title\nPrice 10\n');
  t.same(compareText(a, b), { changed: false, summary: 'no change' });
  const c = comparableText('Title\nPrice 11\nNew line', ignore);
  const d = compareText(a, c);
  t.ok(d.changed);
  t.same(d.added, ['Price 11', 'New line']);
  t.same(d.removed, ['Price 10']);
  t.equal(d.summary, '2 line(s) added, 1 removed; first: + Price 11');
  t.equal(comparableText('Price 10', ignoreMatchers(['Price'])), '', 'an unanchored pattern drops any line it matches');
});

t.test('snapshots compare without their refs', async (t) => {
  const a = snapshotForCompare('- heading "News" [level=1]\n- link "Home" [ref=e3]\n- button "Buy" [ref=f2:e14]');
  const b = snapshotForCompare('- heading "News" [level=1]\n- link "Home" [ref=e4]\n- button "Buy" [ref=f2:e15]');
  t.equal(a, b, 'renumbered refs are no change');
  t.equal(a, '- heading "News" [level=1]\n- link "Home"\n- button "Buy"');
});

t.test('screenshots: the share of changed pixels against the threshold', async (t) => {
  const base = png(100, 100, 0);
  t.same(compareScreenshots(base, png(100, 100, 0), 0.01), { changed: false, share: 0, summary: 'no change' });
  const small = compareScreenshots(base, png(100, 100, 50), 0.01);
  t.equal(small.changed, false, '0.5% is within 1%');
  t.equal(small.share, 0.005);
  t.match(small.summary, /0\.50% of pixels changed, within the threshold/);
  const big = compareScreenshots(base, png(100, 100, 300), 0.01);
  t.equal(big.changed, true, '3% is past 1%');
  t.equal(big.share, 0.03);
  t.equal(compareScreenshots(base, png(100, 100, 300), 0.05).changed, false, 'a higher threshold lets it pass');
  t.equal(compareScreenshots(base, png(100, 100, 1), 0).changed, true, 'threshold 0: any pixel');
  const resized = compareScreenshots(base, png(100, 120, 0), 0.5);
  t.same([resized.changed, resized.share], [true, 1], 'a new size is a change');
});

t.test('ignore patterns run in linear time: a backtracking bomb on a long line ends at once; backreferences are refused', async (t) => {
  const [bomb] = ignoreMatchers(['^(a+)+$']);
  const line = `${'a'.repeat(100_000)}!`;
  const started = process.hrtime.bigint();
  t.equal(comparableText(`keep\n${line}`, [bomb!]), `keep\n${line}\n`, 'the line does not match, and the answer comes');
  // Generous bound: a backtracking engine would take longer than the age of the universe on this line.
  t.ok(Number(process.hrtime.bigint() - started) / 1e6 < 5000);
  t.throws(() => ignoreMatchers(['(a)\\1']), /linear/);
  t.throws(() => ignoreMatchers(['x(?=y)']), /linear/);
  // Lookbehind is for the engine to say: V8's linear engine runs it from Node 24 on (in linear time, as anything it
  // takes) and refuses it before. Either way no pattern it takes can backtrack.
  let behind: RegExp | undefined;
  try {
    [behind] = ignoreMatchers(['(?<=a)b']);
  } catch (e) {
    t.match(String(e), /linear/, 'refused by an engine that cannot run it in linear time');
  }
  if (behind) {
    t.ok(behind.test('ab') && !behind.test('cb'), 'taken and matching as written');
    const long = `${'a'.repeat(100_000)}c`;
    const t0 = process.hrtime.bigint();
    t.notOk(behind.test(long));
    t.ok(Number(process.hrtime.bigint() - t0) / 1e6 < 5000, 'in linear time on a long line');
  }
});
