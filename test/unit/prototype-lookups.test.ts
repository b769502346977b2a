/**
 * The tables read by a caller's, a page's or a document's string answer Object.prototype's names as unknown: a
 * key named 'constructor', an XML entity &constructor;, a file named x.constructor. Before, each read the
 * prototype (a key resolved to the Object function, the entity decoded to its source text).
 */
import t from 'tap';
import { parseChord, resolveKey } from '../../daemon/browser/keys.js';
import { decodeEntities } from '../../daemon/docs/xml.js';
import { mimeOf } from '../../storage/files.js';
import { typeOfMime, typeOfName } from '../../daemon/docs/collect.js';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

t.test('keys and chords', async (t) => {
  for (const n of NAMES) {
    t.equal(resolveKey(n), undefined, `key ${n}`);
    t.ok('error' in parseChord(`${n}+a`), `modifier ${n}`);
  }
});

t.test('XML entities, file names and MIME types', async (t) => {
  for (const n of NAMES) {
    t.equal(decodeEntities(`&${n.toLowerCase()};`), `&${n.toLowerCase()};`, `entity ${n}`);
    t.equal(mimeOf(`x.${n}`), 'application/octet-stream', `mime of x.${n}`);
    t.equal(typeOfName(`x.${n}`), undefined, `type of x.${n}`);
    t.equal(typeOfMime(n), undefined, `type of MIME ${n}`);
  }
});
