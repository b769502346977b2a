/** scrollUntil's merge of what a list shows, look after look: every row once, in order, equal texts kept apart. */
import t from 'tap';
import { ItemMerge } from '../../daemon/read/scroll-until.js';

const rows = (keys: string[]) => keys.map((key) => ({ key, html: key }));
const keys = (m: ItemMerge) => m.items.map((i) => i.key);

t.test('overlapping windows of a virtual list add only what is new', async (t) => {
  const m = new ItemMerge();
  t.equal(m.add(rows(['a', 'b', 'c', 'd'])), 4);
  t.equal(m.add(rows(['c', 'd', 'e', 'f'])), 2);
  t.equal(m.add(rows(['c', 'd', 'e', 'f'])), 0, 'the same look again adds nothing');
  t.equal(m.add(rows(['f', 'g'])), 1);
  t.same(keys(m), ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
});

t.test('rows with equal text stay as many as there are', async (t) => {
  const m = new ItemMerge();
  m.add(rows(['x1', 'same', 'same']));
  m.add(rows(['same', 'same', 'same', 'x2']));
  t.same(keys(m), ['x1', 'same', 'same', 'same', 'x2'], 'the window is laid where the whole overlap agrees');
  const endless = new ItemMerge();
  endless.add(rows(['r', 'r']));
  endless.add(rows(['r', 'r', 'r', 'r']));
  t.same(keys(endless), ['r', 'r', 'r', 'r'], 'an append-only list that shows everything from the top');
});

t.test('a window that overlaps nothing follows what is held; an empty one changes nothing', async (t) => {
  const m = new ItemMerge();
  m.add(rows(['a', 'b']));
  t.equal(m.add([]), 0);
  t.equal(m.add(rows(['y', 'z'])), 2);
  t.same(keys(m), ['a', 'b', 'y', 'z']);
});
