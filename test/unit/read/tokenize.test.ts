import t from 'tap';
import { stem, tokenize } from '../../../daemon/read/tokenize.js';

t.test('lower case, punctuation gone, stopwords dropped', async (t) => {
  t.same(tokenize('The QUICK brown Fox, and the lazy dog!'), ['quick', 'brown', 'fox', 'lazy', 'dog']);
  t.same(tokenize('Der Hund und die Katze'), ['hund', 'katze']);
  t.same(tokenize('Le chat et la souris'), ['chat', 'souris']);
  t.same(tokenize('El perro y los gatos'), ['perro', 'gato']);
  t.same(tokenize(''), []);
  t.same(tokenize('the of and'), []);
});

t.test('light plural stemming', async (t) => {
  t.same(['grams', 'ratios', 'classes', 'boxes', 'matches', 'berries', 'process', 'status', 'analysis', 'gas'].map(stem), [
    'gram', 'ratio', 'class', 'box', 'match', 'berry', 'process', 'status', 'analysis', 'gas',
  ]);
});

t.test('unicode: accents folded, other scripts kept, CJK as bigrams', async (t) => {
  t.same(tokenize('Café crème brûlée'), ['cafe', 'creme', 'brulee']);
  t.same(tokenize('Größe Übersicht'), ['große', 'ubersicht']);
  t.same(tokenize('Привет, мир'), ['привет', 'мир']);
  t.same(tokenize('東京タワーの高さ'), ['東京', '京タ', 'タワ', 'ワー', 'ーの', 'の高', '高さ']);
  t.same(tokenize('版本2.0 release'), ['版本', '2', '0', 'release']);
  t.same(tokenize('ＡＢＣ１２３'), ['abc123']); // full-width folded by NFKC
});
