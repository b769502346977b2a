import t from 'tap';
import { splitPassages } from '../../../daemon/read/passages.js';
import { GUIDE_MD } from './fixtures.js';

t.test('passages follow sections and keep their heading path', async (t) => {
  const ps = splitPassages(GUIDE_MD, { targetChars: 300 });
  for (const p of ps) {
    t.equal(p.text, GUIDE_MD.slice(p.start, p.end), 'offsets point into the markdown');
    t.equal(p.text, p.text.trim(), 'no edge whitespace');
    // A passage never crosses into another section.
    t.notMatch(p.text.slice(1), /\n#{1,6} /, 'no heading after the start');
  }
  t.same(
    ps.map((p) => p.headingPath.join(' > ')),
    [
      'Espresso Machine Guide',
      'Espresso Machine Guide > 1. Unpacking',
      'Espresso Machine Guide > 2. Daily use',
      'Espresso Machine Guide > 2. Daily use',
      'Espresso Machine Guide > 3. Descaling',
      'Espresso Machine Guide > 3. Descaling',
      'Espresso Machine Guide > 3. Descaling > Descaling schedule',
      'Espresso Machine Guide > 4. Troubleshooting',
      'Espresso Machine Guide > 5. Warranty',
    ],
  );
  t.ok(ps[0].text.startsWith('# Espresso Machine Guide\n\nThank you'), 'a section heading opens its first passage');
  t.ok(ps[1].text.endsWith('- Tamper and measuring spoon'), 'paragraph and list packed together');
  t.ok(ps[3].text.startsWith('Grind about 18 grams'), 'a new passage starts at a paragraph boundary');
});

t.test('default target is about 600 characters', async (t) => {
  const ps = splitPassages(GUIDE_MD);
  t.equal(ps.length, 7);
  t.ok(ps.every((p) => p.end - p.start <= 600 + 40));
});

t.test('long blocks are cut at lines, then sentences, then spaces', async (t) => {
  const table = ['| a | b |', '| --- | --- |', ...Array.from({ length: 100 }, (_, i) => `| ${i} | value ${i} |`)].join('\n');
  const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
  const words = 'word '.repeat(300).trim();
  const md = `## Data\n\n${table}\n\n## Prose\n\n${sentences}\n\n## Words\n\n${words}`;
  const ps = splitPassages(md, { targetChars: 200 });
  for (const p of ps) {
    t.equal(p.text, md.slice(p.start, p.end));
    t.ok(p.text.length <= 200 + '## Prose\n\n'.length, `passage of ${p.text.length} chars`);
  }
  const data = ps.filter((p) => p.headingPath[0] === 'Data');
  t.ok(data.length > 5);
  t.ok(data.slice(1).every((p) => p.text.startsWith('| ') && p.text.endsWith(' |')), 'table cut between rows');
  const prose = ps.filter((p) => p.headingPath[0] === 'Prose');
  t.ok(prose.every((p) => p.text.endsWith('is here.')), 'prose cut after sentences');
  const w = ps.filter((p) => p.headingPath[0] === 'Words');
  t.ok(w.every((p) => p.text.endsWith('word')), 'words never split');
  t.equal(w.map((p) => p.text.replace(/^## Words\n\n/, '')).join(' '), words);
});

t.test('headings inside code fences are code, not sections', async (t) => {
  const md = '# Top\n\nIntro.\n\n```sh\n# install\nnpm i\n\n# run\nnpm start\n```\n\n## Next\n\nMore.';
  const ps = splitPassages(md);
  t.same(
    ps.map((p) => [p.headingPath, p.text]),
    [
      [['Top'], '# Top\n\nIntro.\n\n```sh\n# install\nnpm i\n\n# run\nnpm start\n```'],
      [['Top', 'Next'], '## Next\n\nMore.'],
    ],
  );
});

t.test('heading paths: siblings replace, links and emphasis removed', async (t) => {
  const md = '# A\n\n## B [link](https://x.example/)\n\ntext b\n\n### *C*\n\ntext c\n\n## D ##\n\ntext d\n\n# E\n\ntext e';
  t.same(
    splitPassages(md).map((p) => p.headingPath),
    [['A', 'B link'], ['A', 'B link', 'C'], ['A', 'D'], ['E']],
  );
});

t.test('empty and heading-only input give no passages', async (t) => {
  t.same(splitPassages(''), []);
  t.same(splitPassages('# Only\n\n## Headings'), []);
});

t.test('unicode text keeps exact offsets', async (t) => {
  const md = '## Über uns 🚀\n\n' + '東京タワーは高さ333メートルの電波塔です。'.repeat(20);
  const ps = splitPassages(md, { targetChars: 100 });
  t.ok(ps.length > 3);
  for (const p of ps) {
    t.equal(p.text, md.slice(p.start, p.end));
    t.same(p.headingPath, ['Über uns 🚀']);
    t.ok(p.text.endsWith('。'), 'cut after a Japanese full stop');
  }
});
