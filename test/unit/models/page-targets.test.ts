/** How an act step's element is found again: role, name and position from snapshot lines, and the structure hash. */
import t from 'tap';
import { findTarget, pageTargets } from '../../../daemon/model-features/page-targets.js';

const SNAP = `- heading "Account" [level=1]
- form "Sign in":
  - textbox "Email" [ref=e1] value="a@b.test"
  - textbox "Say \\"hi\\"" [ref=e2]
  - button "Save" [ref=e3]
  *- button "Save" [ref=e7]
  - checkbox "Remember me" [ref=e4] [checked]
- table "Orders":
  - Name|Total
  - Pears|1.20|Edit [ref=f1:e9]
- text: Free shipping`;

t.test('each ref line gives role, name and its position among its like', async (t) => {
  const p = pageTargets(SNAP);
  t.same(p.targets, [
    { ref: 'e1', role: 'textbox', name: 'Email', nth: 0 },
    { ref: 'e2', role: 'textbox', name: 'Say "hi"', nth: 0 },
    { ref: 'e3', role: 'button', name: 'Save', nth: 0 },
    { ref: 'e7', role: 'button', name: 'Save', nth: 1 },
    { ref: 'e4', role: 'checkbox', name: 'Remember me', nth: 0 },
    { ref: 'f1:e9', role: 'cell', name: 'Pears|1.20|Edit', nth: 0 },
  ]);
  t.equal(findTarget(p, { role: 'button', name: 'Save', nth: 1 })?.ref, 'e7');
  t.notOk(findTarget(p, { role: 'button', name: 'Save', nth: 2 }));
});

t.test('the structure hash ignores refs, values, states and text, not elements', async (t) => {
  const base = pageTargets(SNAP).structure;
  const reloaded = SNAP.replace(/e(\d)\]/g, (_m, n) => `e${Number(n) + 20}]`).replace('value="a@b.test"', 'value="other"').replace(' [checked]', '').replace('Free shipping', 'Sale');
  t.equal(pageTargets(reloaded).structure, base, 'a fresh load with other values is the same kind of page');
  t.not(pageTargets(SNAP.replace('button "Save" [ref=e3]', 'button "Send" [ref=e3]')).structure, base, 'a renamed button is not');
  t.not(pageTargets(`${SNAP}\n- link "More" [ref=e30]`).structure, base, 'a new element is not');
});
