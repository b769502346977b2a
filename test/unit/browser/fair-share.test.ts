/** Fair share: which browser gives way when the host is full and another user asks. */
import t from 'tap';
import { browserToStop, fairShare, type Slot } from '../../../daemon/browser/fair-share.js';

const slot = (key: string, lastUsed: number, busy = false): Slot => ({ key, user: key.split('/')[0], lastUsed, busy });

t.test('an equal part of the host per user wanting browsers, at least one', async (t) => {
  t.equal(fairShare(2, 2), 1);
  t.equal(fairShare(4, 2), 2);
  t.equal(fairShare(5, 2), 2);
  t.equal(fairShare(2, 5), 1);
  t.equal(fairShare(3, 0), 3);
});

t.test("one user's profiles hold every slot: the idle-longest of them gives way to another user", async (t) => {
  t.equal(browserToStop([slot('alice/a', 200), slot('alice/b', 100)], 'bob', 2), 'alice/b');
  t.equal(browserToStop([slot('alice', 100), slot('alice/a', 300), slot('alice/b', 200), slot('carol', 50)], 'bob', 4), 'alice', 'the idle-longest of the user above their share, not carol');
});

t.test('a browser in use or starting never gives way', async (t) => {
  t.equal(browserToStop([slot('alice/a', 100, true), slot('alice/b', 200)], 'bob', 2), 'alice/b');
  t.equal(browserToStop([slot('alice/a', 100, true), slot('alice/b', 200, true)], 'bob', 2), undefined, 'all busy: none');
});

t.test('no one gives way to a user at their share, nor from a user at theirs', async (t) => {
  t.equal(browserToStop([slot('alice', 100), slot('bob', 200)], 'bob', 2), undefined, 'bob already has his one');
  t.equal(browserToStop([slot('alice', 100), slot('bob', 200)], 'carol', 2), undefined, 'alice and bob each hold one: their share');
  t.equal(browserToStop([slot('alice/a', 100), slot('alice/b', 200)], 'alice', 2), undefined, 'a user never stops their own for themselves here');
  t.equal(browserToStop([slot('alice/a', 100), slot('alice/b', 200), slot('bob', 50)], 'bob', 4), undefined, 'alice holds 2, her share of 4 between two users: none of hers gives way');
});
