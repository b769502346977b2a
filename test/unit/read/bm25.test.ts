import t from 'tap';
import { bestPassages, rankPassages, splitPassages, type Passage } from '../../../daemon/read/bm25.js';
import { GUIDE_MD } from './fixtures.js';

const section = (p: Passage) => p.headingPath.slice(1).join(' > ');

t.test('a query about section 3 ranks section 3 first', async (t) => {
  const ps = splitPassages(GUIDE_MD, { targetChars: 300 });
  const ranked = rankPassages(ps, 'limescale in the boiler with hard water');
  t.ok(ranked.length > 0 && ranked.length <= 5);
  t.equal(section(ranked[0].passage), '3. Descaling');
  for (let i = 1; i < ranked.length; i++) t.ok(ranked[i - 1].score >= ranked[i].score, 'best first');
  // Only plural -s is stemmed: "descale" finds "Descale ..." lines, which are all in section 3.
  t.match(section(rankPassages(ps, 'How do I descale the machine?')[0].passage), /^3\. Descaling/);

  const acid = rankPassages(ps, 'citric acid solution', { topK: 1 });
  t.equal(acid.length, 1);
  t.equal(section(acid[0].passage), '3. Descaling');
  t.match(acid[0].passage.text, 'dissolve 30 grams of citric acid');

  // The heading path counts: the schedule table says "Descale", its section says "schedule".
  const schedule = rankPassages(ps, 'descaling schedule hard water months', { topK: 1 });
  t.equal(section(schedule[0].passage), '3. Descaling > Descaling schedule');
});

t.test('other topics find their own sections', async (t) => {
  const ps = splitPassages(GUIDE_MD, { targetChars: 300 });
  t.equal(section(rankPassages(ps, 'froth milk steam wand')[0].passage), '2. Daily use');
  t.equal(section(rankPassages(ps, 'warranty receipt purchase')[0].passage), '5. Warranty');
  t.equal(section(rankPassages(ps, 'coffee runs too fast')[0].passage), '4. Troubleshooting');
});

t.test('empty, stopword-only and unmatched queries return nothing', async (t) => {
  const ps = splitPassages(GUIDE_MD);
  t.same(rankPassages(ps, ''), []);
  t.same(rankPassages(ps, '   '), []);
  t.same(rankPassages(ps, 'the and of'), []);
  t.same(rankPassages(ps, 'zeppelin'), []);
  t.same(rankPassages([], 'machine'), []);
  t.same(bestPassages(GUIDE_MD, ''), []);
  t.same(rankPassages(ps, 'machine', { topK: 0 }), []);
});

t.test('ties keep document order', async (t) => {
  const md = ['## One', 'apple pie recipe', '## Two', 'banana bread', '## Three', 'apple pie recipe', '## Four', 'apple pie recipe'].join('\n\n');
  const ps = splitPassages(md);
  const ranked = rankPassages(ps, 'apple pie');
  t.same(ranked.map((r) => r.passage.headingPath[0]), ['One', 'Three', 'Four']);
  t.equal(ranked[0].score, ranked[1].score);
  t.equal(ranked[1].score, ranked[2].score);
  t.same(rankPassages(ps, 'apple pie', { topK: 2 }).map((r) => r.passage.headingPath[0]), ['One', 'Three']);
});

t.test('plurals match singulars; link targets are not indexed', async (t) => {
  const md = '## A\n\nOne berry.\n\n## B\n\nSee [here](https://berries.example.com/berries).';
  const ranked = rankPassages(splitPassages(md), 'berries');
  t.same(ranked.map((r) => r.passage.headingPath[0]), ['A']);
});

t.test('k1 and b change scores, not the contract', async (t) => {
  const ps = splitPassages(GUIDE_MD, { targetChars: 300 });
  const a = rankPassages(ps, 'descale machine');
  const b = rankPassages(ps, 'descale machine', { k1: 2, b: 0 });
  t.not(a[0].score, b[0].score);
  t.ok(b.length > 0);
});

t.test('bestPassages returns the top K in document order with scores', async (t) => {
  const query = 'machine limescale descaled warranty';
  const ranked = rankPassages(splitPassages(GUIDE_MD), query, { topK: 3 });
  const best = bestPassages(GUIDE_MD, query, 3);
  t.equal(best.length, 3);
  t.same(
    best.map((b) => b.passage.start),
    ranked.map((r) => r.passage.start).sort((x, y) => x - y),
  );
  for (let i = 1; i < best.length; i++) t.ok(best[i - 1].passage.start < best[i].passage.start);
  t.same(new Set(best.map((b) => b.score)), new Set(ranked.map((r) => r.score)));
  // Default topK is 5, and smaller passages can be asked for.
  t.ok(bestPassages(GUIDE_MD, 'machine').length <= 5);
  t.ok(bestPassages(GUIDE_MD, 'machine', 5, { targetChars: 200 }).every((b) => b.passage.text.length <= 260));
});

t.test('unicode documents and queries', async (t) => {
  const md = [
    '# Reiseführer',
    '## Über München',
    'München ist bekannt für das Oktoberfest und die Biergärten.',
    '## Über Köln',
    'Der Kölner Dom ist eine gotische Kathedrale am Rhein.',
    '## Москва',
    'Красная площадь находится в центре Москвы.',
    '## 東京',
    '東京タワーは高さ333メートルの電波塔です。',
  ].join('\n\n');
  const top = (q: string) => rankPassages(splitPassages(md), q, { topK: 1 })[0]?.passage.headingPath.at(-1);
  t.equal(top('Kölner Dom'), 'Über Köln');
  t.equal(top('kolner dom'), 'Über Köln', 'accents folded on both sides');
  t.equal(top('Oktoberfest München'), 'Über München');
  t.equal(top('Красная площадь'), 'Москва');
  t.equal(top('東京タワーの高さ'), '東京');
});
