/** What an act tab holds for a verdict, by the host-wide settings and the user's host rules. */
import t from 'tap';
import { requestInterception } from '../../../daemon/settings/request-interception.js';

const off = { block_ads: [] as string[], profile_enabled: false as boolean | string[] };

t.test('nothing to refuse or change: nothing is held', async (t) => {
  t.equal(requestInterception(off, []), 'none');
  t.equal(requestInterception(off, [{ pattern: 'example.com', access: 'allowed' }]), 'none', 'an allowed rule refuses nothing');
  t.equal(requestInterception({ ...off, profile_enabled: [] }, []), 'none', 'an identity for no site');
});

t.test('a blocked site or the identity: documents, where navigations are decided', async (t) => {
  t.equal(requestInterception(off, [{ pattern: 'bad.example', access: 'blocked' }]), 'documents');
  t.equal(requestInterception({ ...off, profile_enabled: true }, []), 'documents');
  t.equal(requestInterception({ ...off, profile_enabled: ['shop.example'] }, []), 'documents');
});

t.test('a read-only site or ad blocking: every request, since any could be refused', async (t) => {
  t.equal(requestInterception(off, [{ pattern: 'bank.example', access: 'read_only' }]), 'all');
  t.equal(requestInterception({ ...off, block_ads: ['news.example'] }, []), 'all');
  t.equal(requestInterception({ block_ads: ['news.example'], profile_enabled: true }, [{ pattern: 'bad.example', access: 'blocked' }]), 'all', 'the widest need wins');
});
