/** What reaches the audit log: an allow-list. Typed text, keys and code by length and hash; secrets and file bytes never. */
import t from 'tap';
import { fingerprint, redactArgs, redactUrl } from '../../daemon/call/redact.js';

const s = (x: unknown) => JSON.stringify(x);

t.test('typed text, filled values, form fields and evaluated code are kept by length and hash only', async (t) => {
  t.same(redactArgs('browser_type', { text: 'hunter2', ref: 'e3', tab: 't1' }), { text: fingerprint('hunter2'), ref: 'e3', tab: 't1' });
  t.match(fingerprint('hunter2'), /^\[7 chars sha256:[0-9a-f]{12}\]$/);
  t.same(redactArgs('browser_fill', { value: 'Ada', ref: 'e1' }), { value: fingerprint('Ada'), ref: 'e1' });
  t.same(redactArgs('browser_fill_form', { fields: { e1: 'secret', e2: 'x' } }), { fields: { e1: fingerprint('secret'), e2: fingerprint('x') } });
  const code = 'fetch("/steal?pw=" + document.cookie)';
  const ev = s(redactArgs('browser_evaluate', { js: code, tab: 't2' }));
  t.notMatch(ev, /steal|cookie|fetch/);
  t.match(ev, new RegExp(`\\[${code.length} chars sha256:`));
  t.notMatch(s(redactArgs('browser_select_options', { values: ['Secret Plan'] })), /Secret/);
});

t.test('browser_press keeps named keys and chords, never a typed character', async (t) => {
  for (const k of ['Enter', 'Tab', 'ArrowDown', 'Control+A', 'Shift+Tab', 'F5']) t.same(redactArgs('browser_press', { key: k }), { key: k }, k);
  for (const k of ['h', 'u', '2', '!', 'é', 'Shift+h']) {
    const r = redactArgs('browser_press', { key: k }) as any;
    t.notSame(r.key, k, `${k} is not kept`);
    t.match(r.key, /^\[\d+ chars\]$/);
  }
});

t.test('URLs lose credentials, secret query values and parameter fragments; the rest stays', async (t) => {
  const r = redactUrl('https://alice:pa55word@bank.example/login?next=%2Fhome&token=abc123&api_key=K9&page=2#access_token=XYZ&x=1');
  t.notMatch(r, /pa55word|abc123|K9|XYZ|alice/);
  t.match(r, /^https:\/\/redacted@bank\.example\/login\?/);
  t.match(r, /next=%2Fhome/);
  t.match(r, /page=2/);
  t.match(r, /token=redacted/);
  t.equal(redactUrl('https://a.example/#section-2'), 'https://a.example/#section-2', 'an anchor is not a secret');
  t.notMatch(s(redactArgs('browser_read', { urls: ['https://u:p@a.example/?password=hunter2', 'not a url hunter3'] })), /hunter2|hunter3|u:p/);
  t.notMatch(s(redactArgs('browser_open', { url: 'https://x.example/?session=S3CR3T', mode: 'read' })), /S3CR3T/);
});

t.test('unknown arguments are dropped to their type; nested secrets never appear', async (t) => {
  const r = s(redactArgs('browser_x', { password: 'p4ss', headers: { Authorization: 'Bearer abc' }, note: 'hello there', base64: Buffer.from('0123456789').toString('base64') }));
  t.notMatch(r, /p4ss|Bearer abc|hello there|MDEy/);
  t.match(r, /\[10 bytes\]/);
  t.match(r, /"password":"\[redacted string\]"/);
  t.match(r, /"headers":"\[redacted object\]"/);
  t.same(redactArgs('browser_x', 'just a string'), '[string]', 'arguments that are not an object keep only their type');
  t.same(redactArgs('browser_x', [1, 2]), '[array]');
});

t.test('an object nested 10,000 deep is redacted without overflowing', async (t) => {
  let deep: any = { leaf: 'secret-leaf' };
  for (let i = 0; i < 10000; i++) deep = { a: deep, tab: 't1' };
  const r = s(redactArgs('browser_tabs', deep));
  t.notMatch(r, /secret-leaf/);
  t.match(r, /"tab":"t1"/);
  const wide = Object.fromEntries(Array.from({ length: 10000 }, (_, i) => [`k${i}`, i]));
  t.ok(Object.keys(redactArgs('browser_x', wide) as object).length <= 50, 'and a very wide one is bounded too');
});
