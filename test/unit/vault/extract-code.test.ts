/** Code extraction: the code next to its label wins over dates, amounts, phone numbers, years and postal codes. */
import t from 'tap';
import { extractCode } from '../../../daemon/vault/otp/extract-code.js';
import { htmlToText } from '../../../daemon/vault/otp/html-text.js';
import { mentionsSite, siteTerms } from '../../../daemon/vault/otp/about-site.js';
import { siteOf } from '../../../daemon/secrets/site-match.js';
import { codeFrom } from '../../../daemon/vault/otp/message.js';

t.test('labelled codes in English, German, French and Spanish', async (t) => {
  const cases: [string, string][] = [
    ['Your verification code is 482913. It expires in 10 minutes.', '482913'],
    ['482913 is your Example login code', '482913'],
    ['Ihr Bestätigungscode lautet 7351. Gültig bis 23.11.2026 um 14:05 Uhr.', '7351'],
    ['Votre code de vérification : 559012', '559012'],
    ['Tu código de verificación es 90817265', '90817265'],
    ['Use PIN 4321 to continue', '4321'],
    ['Your OTP: 123 456', '123456'],
    ['Einmalcode: 246-810', '246810'],
    ['G-123456 is your Google verification code.', 'G-123456'],
    ['Your security code is ABC-123', 'ABC-123'],
    ["Your confirmation code is below — enter it in your open browser window and we'll help you get signed in.\n\nZ4Q-7YB\n\nIf you didn't request this email, there's nothing to worry about.", 'Z4Q-7YB'],
    ['Sign in to Example\nWe received a request on Nov 23, 2026 at 9:41 PM from 203.0.113.7.\nEnter this code: 739 402\nExample Inc., 548 Market St #12345, San Francisco, CA 94104', '739402'],
    ['Ihre TAN für die Überweisung von 1.250,00 EUR an DE89 3704 0044 0532 0130 00 lautet 628391.', '628391'],
    ['Order #884211 shipped on 2026-11-23. Your sign-in code: 660194. Total $1234.00', '660194'],
  ];
  for (const [text, code] of cases) t.equal(extractCode(text), code, text);
});

t.test('numbers that are not codes are ignored', async (t) => {
  const none = [
    'Your order 2026 total: 1299 EUR, call +49 30 1234 5678',
    'Meeting on 12/05/2026 at 10:30 in room 4',
    'Welcome to Example! We are glad you joined in 2025.',
    'Your promo code SAVE2026 gives 20% off',
    'Zip code 94043',
  ];
  for (const text of none) t.equal(extractCode(text), undefined, text);
});

t.test('the code wins over a year, a phone number, an amount and a postal code in the footer', async (t) => {
  const body = [
    'Hello Ana,',
    'someone (hopefully you) asked to sign in to Example on 23.11.2026. Amount authorised: €49.99.',
    'Your verification code:',
    '',
    '815204',
    '',
    'If this was not you, call us at (030) 555 0199 or +1 650 253 0000.',
    '© 2026 Example Inc. · 1600 Amphitheatre Parkway, Mountain View, CA 94043 · Unsubscribe',
  ].join('\n');
  t.equal(extractCode(body), '815204');
  t.equal(extractCode('Example, Hauptstraße 5, 10115 Berlin\nDein Code: 3388'), '3388');
});

t.test('a lone six-digit number in a message about a code', async (t) => {
  t.equal(extractCode('Your Example code\n\nHi!\n\nEnter the number below.\n\n\n\n\n 774401 \n\nThanks'), '774401');
  t.equal(extractCode('Hi!\n\n774401\n\nThanks'), undefined, 'no code word at all: not taken');
});

t.test('HTML parts read as text, cells kept apart, script and style dropped', async (t) => {
  const text = htmlToText('<html><head><style>.x{width:123456px}</style></head><body><table><tr><td>Your code</td><td><b>318&#56;40</b></td></tr></table><script>var n=999999</script><p>Valid&nbsp;10 min</p></body></html>');
  t.notMatch(text, /123456|999999/);
  t.match(text, /Your code\n318840/);
  t.equal(extractCode(text), '318840');
});

t.test('which messages are about the site', async (t) => {
  t.equal(siteOf('login.example.com'), 'example.com');
  t.equal(siteOf('a.b.example.co.uk'), 'example.co.uk');
  const terms = siteTerms('login.example.com');
  t.same(terms.hosts.sort(), ['example.com', 'login.example.com']);
  t.ok(mentionsSite('From: no-reply@mail.example.com', terms));
  t.ok(mentionsSite('Your Example code', terms));
  t.ok(mentionsSite('Visit example.com.', terms), 'a sentence may end after the name');
  t.notOk(mentionsSite('From: no-reply@notexample.com', terms));
  t.notOk(mentionsSite('See example.com.evil.net', { hosts: ['example.com'], brands: [] }), 'a host that continues is another host');
  t.notOk(mentionsSite('From: security@evil-examples.net about your account', terms));
  const byLoginUrl = siteTerms('shop', 'https://id.shopco.de/login');
  t.ok(mentionsSite('noreply@shopco.de', byLoginUrl));
  // The same Public Suffix List as the vault's: a site under a shared suffix is its own, not the suffix's owner.
  const pages = siteTerms('alice.github.io');
  t.same(pages.hosts, ['alice.github.io'], 'github.io is a suffix: alice.github.io is the site');
  t.same(pages.brands, ['alice']);
  t.notOk(mentionsSite('Your GitHub code: sign in at github.com', pages), 'the suffix owner is another site');
  t.ok(mentionsSite('Your code for alice.github.io', pages));
  t.same(siteTerms('www.example.com.au').hosts.sort(), ['example.com.au'], 'a second-level suffix');
  t.same(siteTerms('shop.example.co.jp').hosts.sort(), ['example.co.jp', 'shop.example.co.jp'], 'a suffix the old short list did not know');
});

t.test('codeFrom: sender filter, site, then the code', async (t) => {
  const rule = { terms: siteTerms('example.com'), from: 'no-reply@example.com' };
  const msg = { from: 'Example <no-reply@example.com>', subject: 'Your sign-in code', text: 'Code: 604412', html: undefined };
  t.equal(codeFrom(msg, rule), '604412');
  t.equal(codeFrom({ ...msg, from: 'Other <x@other.org>' }, rule), undefined, 'from filter');
  t.equal(codeFrom({ ...msg, from: 'Other <x@other.org>', subject: 'Your code', text: 'Code: 604412' }, { terms: siteTerms('example.com') }), undefined, 'not about the site');
  t.equal(codeFrom({ ...msg, text: '', html: '<p>Your code</p><p><b>771204</b></p>' }, rule), '771204', 'HTML only');
});
