/**
 * collect.types narrows documents/images/media instead of being refused beside them: a caller naturally sends
 * documents: true with types: ["csv"] and means the CSV documents only. A combination that leaves no type is
 * still refused, before anything is fetched.
 */
import t from 'tap';
import { checkCollectOptions, wantedTypes } from '../../../daemon/docs/collect.js';
import type { CollectOptions } from '../../../protocol/read-params.js';

const wanted = (o: CollectOptions) => [...wantedTypes(o)].sort();

t.test('types with documents: true narrows to those documents', async (t) => {
  t.doesNotThrow(() => checkCollectOptions({ documents: true, types: ['csv'] }));
  t.same(wanted({ documents: true, types: ['csv'] }), ['csv']);
});

t.test('types with images or media narrows likewise', async (t) => {
  t.doesNotThrow(() => checkCollectOptions({ images: true, types: ['image'], caption: true }));
  t.same(wanted({ images: true, types: ['image'] }), ['image']);
  t.same(wanted({ media: true, documents: false, types: ['video', 'pdf'] }), ['video']);
  t.same(wanted({ images: false, types: ['image', 'pdf'] }), ['pdf'], 'a type the flags turn off is dropped');
});

t.test('types alone and flags alone are unchanged', async (t) => {
  t.same(wanted({ types: ['tsv', 'image'] }), ['image', 'tsv']);
  t.ok(wantedTypes({}).has('pdf'));
  t.notOk(wantedTypes({}).has('image'));
  t.ok(wantedTypes({ images: true }).has('image'));
});

t.test('a combination that leaves nothing is refused', async (t) => {
  t.throws(() => checkCollectOptions({ documents: false, types: ['csv'] }), { code: 'validation_error' });
  t.throws(() => checkCollectOptions({ media: true, documents: false, types: ['image'] }), { code: 'validation_error' });
});
