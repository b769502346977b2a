/** What reaches the audit log: typed text by length, secrets and file bytes never. */
import t from 'tap';
import { redactArgs } from '../../daemon/tools/redact.js';

t.test('typed text, filled values and form fields are kept by length only', async (t) => {
  t.same(redactArgs('browser_type', { text: 'hunter2', ref: 'e3' }), { text: '[7 chars]', ref: 'e3' });
  t.same(redactArgs('browser_fill', { value: 'Ada', ref: 'e1' }), { value: '[3 chars]', ref: 'e1' });
  t.same(redactArgs('browser_fill_form', { fields: { e1: 'secret', e2: 'x' } }), { fields: { e1: '[6 chars]', e2: '[1 chars]' } });
});

t.test('secret-looking keys and file contents are out, nested too', async (t) => {
  const r = JSON.stringify(redactArgs('browser_x', { password: 'p', token: 't', headers: { Authorization: 'Bearer abc' }, base64: Buffer.from('0123456789').toString('base64'), url: 'https://a.example/' }));
  t.notMatch(r, /Bearer abc|"p"|"t"|MDEy/);
  t.match(r, /\[10 bytes\]/);
  t.match(r, /a\.example/, 'ordinary arguments stay');
});
