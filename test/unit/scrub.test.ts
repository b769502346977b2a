/** Scrubbing in isolation: the forms a value takes, the response builder's data and errors, the log hook, the leak scan. */
import t from 'tap';
import pino from 'pino';
import { BrowserdError } from '../../protocol/errors.js';
import { ResponseBuilder } from '../../daemon/call/response.js';
import { redactArgs, scrubList, scrubText } from '../../daemon/call/redact.js';
import { scrubbingLogger } from '../../daemon/log-scrub.js';
import { findLeaks } from '../fixtures/daemon.js';

const V = 'a "b" c&d/é';

t.test('a value is hidden as is, JSON-escaped, percent-encoded and form-encoded; short values are left alone', async (t) => {
  const forms = scrubList([V, 'ab']);
  for (const shown of [V, JSON.stringify(V).slice(1, -1), encodeURIComponent(V), new URLSearchParams({ q: V }).toString().slice(2)]) {
    t.equal(scrubText(`x ${shown} y`, forms), 'x [secret hidden] y', shown);
  }
  t.equal(scrubText('ab cab', forms), 'ab cab', 'a two-character value is not scrubbed');
  t.equal(scrubText('hunter2hunter', scrubList(['hunter', 'hunter2hunter'])), '[secret hidden]', 'a value containing another is hidden whole');
  const code = scrubList(['482913']);
  t.equal(scrubText('code 482913, again:482913.', code), 'code [secret hidden], again:[secret hidden].', 'a code is hidden as a number');
  t.equal(scrubText('{"time":1795468482913}', code), '{"time":1795468482913}', 'but not inside a longer number (a timestamp)');
});

t.test('the response builder scrubs text, structured data (keys too) and errors without breaking JSON', async (t) => {
  const out = new ResponseBuilder();
  out.addSecret('":"');
  out.addSecret(V);
  out.text(`said ${V}`).set('value', { [V]: [V, `"${V}"`] }).set('n', 1);
  const json = out.renderJson();
  t.same(json.value, { '[secret hidden]': ['[secret hidden]', '"[secret hidden]"'] });
  t.equal(json.n, 1, 'a secret that looks like JSON punctuation does not break the data');
  t.equal(json.text, 'said [secret hidden]');
  const err = out.scrubError(new BrowserdError('action_failed', `threw ${V}`, { next: `not ${encodeURIComponent(V)}`, details: { v: V } }));
  t.equal(err.code, 'action_failed');
  t.equal(err.message, 'threw [secret hidden]');
  t.equal(err.next, 'not [secret hidden]');
  t.same(err.details, { v: '[secret hidden]' });
});

t.test('audit arguments: text holding a value is [secret], not its hash; kept scalars and keys too', async (t) => {
  const r = redactArgs('browser_x', { text: `pre ${V}`, selector: `#${V}`, url: `https://x.test/?a=${encodeURIComponent(V)}`, ref: 'e1', [V]: 1 }, [V]) as Record<string, unknown>;
  t.equal(r.text, '[secret]');
  t.equal(r.selector, '[secret]');
  t.equal(r.url, '[secret]');
  t.equal(r.ref, 'e1');
  t.notOk(JSON.stringify(r).includes(V));
  t.match((redactArgs('browser_type', { text: 'harmless' }, [V]) as any).text, /sha256/, 'other text keeps its fingerprint');
});

t.test('the log hook scrubs whole lines, child loggers included, and keeps the last list when the store is gone', async (t) => {
  const lines: string[] = [];
  const base = pino({}, { write: (l: string) => void lines.push(l) });
  let values: string[] = [V];
  let broken = false;
  const log = scrubbingLogger(base, () => {
    if (broken) throw new Error('store closed');
    return values;
  });
  log.error({ err: new Error(`boom ${V}`) }, `msg ${V}`);
  log.child({ bound: V }).info('child');
  values = [V, 'later-value'];
  log.info('later-value now');
  broken = true;
  log.info(`still ${V} and later-value`);
  base.info(`the parent is untouched: ${V}`);
  t.equal(lines.length, 5);
  for (const l of lines.slice(0, 4)) t.notOk(l.includes(JSON.stringify(V).slice(1, -1)) || l.includes('later-value'), l);
  t.match(lines[0], /boom \[secret hidden\]/, 'inside a serialised error');
  t.match(lines[1], /"bound":"\[secret hidden\]"/);
  t.match(lines[3], /still \[secret hidden\] and \[secret hidden\]/);
  t.ok(lines[4].includes(JSON.stringify(V).slice(1, -1)), 'the logger passed in is left as it was');
});

t.test('the whole-run scan finds a value in any of its forms, and ignores values too short to scrub', async (t) => {
  const texts = [{ where: 'a', text: 'clean' }, { where: 'b', text: `x${encodeURIComponent(V)}` }, { where: 'c', text: JSON.stringify({ v: V }) }, { where: 'd', text: 'ab' }];
  t.same(findLeaks([V, 'ab'], texts), ['b', 'c']);
  t.same(findLeaks([], texts), []);
  t.same(findLeaks(['482913'], [{ where: 'time', text: '"time":1795468482913' }, { where: 'said', text: 'code=482913' }]), ['said'], 'a code counts as a whole number');
});
