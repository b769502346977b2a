import t from 'tap';
import { BrowserdError } from '../../../protocol/errors.js';
import { assertHostRules, evaluateHostPolicy, patternSpecificity, validateHostRules, type HostRule } from '../../../daemon/policy/host-policy.js';

t.test('no rule, no say', async (t) => {
  t.equal(evaluateHostPolicy([], 'https://example.com/'), 'default');
  t.equal(evaluateHostPolicy([{ pattern: 'example.com', access: 'blocked' }], 'https://example.org/'), 'default');
  t.equal(evaluateHostPolicy([{ pattern: '*', access: 'read_only' }], 'about:blank'), 'default', 'about:blank has no host');
});

t.test('a pattern covers its domain and sub-domains; *. only sub-domains', async (t) => {
  const rules: HostRule[] = [{ pattern: 'bank.example', access: 'read_only' }, { pattern: '*.shop.example', access: 'blocked' }];
  t.equal(evaluateHostPolicy(rules, 'https://bank.example/login'), 'read_only');
  t.equal(evaluateHostPolicy(rules, 'https://www.Bank.Example./x'), 'read_only');
  t.equal(evaluateHostPolicy(rules, 'https://notbank.example/'), 'default');
  t.equal(evaluateHostPolicy(rules, 'https://eu.shop.example/'), 'blocked');
  t.equal(evaluateHostPolicy(rules, 'https://shop.example/'), 'default');
  t.equal(evaluateHostPolicy(rules, 'bank.example'), 'read_only', 'a bare host works too');
  t.equal(evaluateHostPolicy(rules, 'bank.example:8443'), 'read_only', 'host:port works too');
  t.equal(evaluateHostPolicy(rules, 'wss://live.bank.example/socket'), 'read_only');
  t.equal(evaluateHostPolicy(rules, 'blob:https://bank.example/1234'), 'read_only', 'a blob counts as its origin');
});

t.test('the most specific pattern wins', async (t) => {
  const rules: HostRule[] = [
    { pattern: '*', access: 'read_only' },
    { pattern: 'example.com', access: 'blocked' },
    { pattern: 'mail.example.com', access: 'allowed' },
  ];
  t.equal(evaluateHostPolicy(rules, 'https://other.test/'), 'read_only', '* is the fallback');
  t.equal(evaluateHostPolicy(rules, 'https://example.com/'), 'blocked');
  t.equal(evaluateHostPolicy(rules, 'https://www.example.com/'), 'blocked');
  t.equal(evaluateHostPolicy(rules, 'https://mail.example.com/inbox'), 'allowed', 'an exception carved out of a broader rule');
  t.equal(evaluateHostPolicy(rules, 'https://eu.mail.example.com/'), 'allowed');
  // order in the list does not matter
  t.equal(evaluateHostPolicy([...rules].reverse(), 'https://mail.example.com/'), 'allowed');
});

t.test('at equal specificity blocked beats read_only beats allowed', async (t) => {
  const tie = (a: HostRule['access'], b: HostRule['access']) => [
    evaluateHostPolicy([{ pattern: 'example.com', access: a }, { pattern: '*.example.com', access: b }], 'https://www.example.com/'),
    evaluateHostPolicy([{ pattern: '*.example.com', access: b }, { pattern: 'example.com', access: a }], 'https://www.example.com/'),
  ];
  t.same(tie('allowed', 'read_only'), ['read_only', 'read_only']);
  t.same(tie('read_only', 'allowed'), ['read_only', 'read_only']);
  t.same(tie('read_only', 'blocked'), ['blocked', 'blocked']);
  t.same(tie('blocked', 'allowed'), ['blocked', 'blocked']);
  t.equal(evaluateHostPolicy([{ pattern: 'example.com', access: 'allowed' }, { pattern: '*.example.com', access: 'read_only' }], 'https://example.com/'), 'allowed', 'the apex is only under the plain pattern');
});

t.test('IP and IDN hosts', async (t) => {
  const rules: HostRule[] = [{ pattern: '127.0.0.1', access: 'blocked' }, { pattern: 'bücher.de', access: 'read_only' }];
  t.equal(evaluateHostPolicy(rules, 'http://127.0.0.1:8080/'), 'blocked');
  t.equal(evaluateHostPolicy(rules, 'http://2130706433/'), 'blocked', 'URL parsing makes this 127.0.0.1');
  t.equal(evaluateHostPolicy(rules, 'http://127.0.0.2/'), 'default');
  t.equal(evaluateHostPolicy(rules, 'https://www.xn--bcher-kva.de/'), 'read_only');
  t.ok(patternSpecificity('10.0.0.1') > patternSpecificity('a.b.c.d.example.com'));
  t.equal(patternSpecificity('*'), 0);
  t.equal(patternSpecificity('*.example.com'), patternSpecificity('example.com'));
});

t.test('validateHostRules accepts good lists', async (t) => {
  t.same(validateHostRules([]), []);
  t.same(
    validateHostRules([
      { pattern: 'example.com', access: 'read_only' },
      { pattern: '*.example.org', access: 'blocked' },
      { pattern: '*', access: 'allowed' },
      { pattern: 'bücher.de', access: 'read_only' },
      { pattern: '10.0.0.1', access: 'blocked' },
      { pattern: '::1', access: 'blocked' },
      { pattern: 'localhost', access: 'blocked' },
      { pattern: 'example.net.', access: 'allowed' },
    ]),
    [],
  );
});

t.test('validateHostRules names every problem', async (t) => {
  t.same(validateHostRules('example.com'), ['rules must be an array of {pattern, access}']);
  const errors = validateHostRules([
    { pattern: 'example.com', access: 'readonly' },
    { pattern: 'https://example.org/path', access: 'blocked' },
    { pattern: 'foo.*.com', access: 'blocked' },
    { pattern: '', access: 'blocked' },
    { pattern: 'Example.COM.', access: 'allowed' },
    { pattern: 'ok.test', access: 'allowed', note: 'x' },
    'example.net',
    { pattern: 'bad_label.test', access: 'blocked' },
    { pattern: 'example.com:8080', access: 'blocked' },
    { pattern: '127.1', access: 'blocked' },
    { pattern: '*.10.0.0.1', access: 'blocked' },
  ]);
  t.match(errors, [
    /^rules\[0\]\.access must be one of read_only, blocked, allowed \(got "readonly"\)$/,
    /^rules\[1\]\.pattern "https:\/\/example.org\/path" must be a host name such as example.com or \*.example.com, not a URL$/,
    /^rules\[2\]\.pattern "foo\.\*\.com" may use \* only/,
    /^rules\[3\]\.pattern must be a non-empty string/,
    /^rules\[4\]\.pattern "Example.COM." repeats rules\[0\]/,
    /^rules\[5\] has unknown key note; accepted keys are pattern, access$/,
    /^rules\[6\] must be an object/,
    /^rules\[7\]\.pattern "bad_label.test" is not a valid host name$/,
    /^rules\[8\]\.pattern "example.com:8080" must not carry a port$/,
    /^rules\[9\]\.pattern "127.1" spells an IP address in a short or numeric form/,
    /^rules\[10\]\.pattern "\*.10.0.0.1" cannot put \*. before an IP address$/,
  ]);
  t.equal(errors.length, 11);
});

t.test('assertHostRules throws one validation_error listing all problems', async (t) => {
  t.same(assertHostRules([{ pattern: ' example.com ', access: 'blocked' }]), [{ pattern: 'example.com', access: 'blocked' }]);
  try {
    assertHostRules([{ pattern: 'a.test', access: 'nope' }, { pattern: 'a/b', access: 'blocked' }]);
    t.fail('should throw');
  } catch (e) {
    t.ok(e instanceof BrowserdError);
    const err = e as BrowserdError;
    t.equal(err.code, 'validation_error');
    t.equal(err.status, 400);
    t.match(err.message, /rules\[0\]\.access.*; rules\[1\]\.pattern/);
    t.match(err.details, { errors: [/rules\[0\]/, /rules\[1\]/] });
    t.match(err.next, /read_only, blocked or allowed/);
  }
});
