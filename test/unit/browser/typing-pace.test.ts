/**
 * Typing key by key: with humanize off (or outside the identity's sites) the keys go out back to back, with
 * no pause between them; with it on, each key after the first waits a person's gap. The pauses are counted
 * as timers are set (every pause is a setTimeout, answered at once here), so the check does not depend on how
 * busy the machine is;
 * test/tools/humanize.test.ts shows the same input reaching a real page.
 */
import t from 'tap';

interface Sent { method: string; params: any }

async function typeWith(humanInput: boolean, text: string, slowly: boolean) {
  const pauses: number[] = [];
  const sent: Sent[] = [];
  const { typeText } = await import('../../../daemon/browser/input.js');
  const tab = {
    humanInput: () => humanInput,
    send: async (method: string, params: any) => void sent.push({ method, params }),
    call: async () => undefined,
  };
  const real = globalThis.setTimeout;
  globalThis.setTimeout = ((fn: () => void, ms: number) => (pauses.push(ms), real(fn, 0))) as typeof setTimeout;
  try {
    await typeText(tab as any, text, slowly);
  } finally {
    globalThis.setTimeout = real;
  }
  return { pauses, sent };
}

t.test('humanize off, slowly: one key down and up per character, no pause between keys', async (t) => {
  const { pauses, sent } = await typeWith(false, 'slowly typed', true);
  t.same(pauses, [], 'no pause');
  const downs = sent.filter((s) => s.method === 'Input.dispatchKeyEvent' && s.params.type === 'keyDown');
  t.equal(downs.map((s) => s.params.text).join(''), 'slowly typed', 'every character, in order');
  t.equal(sent.filter((s) => s.params.type === 'keyUp').length, 12, 'each key released');
});

t.test('humanize off, not slowly: one insertText, no key events', async (t) => {
  const { pauses, sent } = await typeWith(false, 'hello', false);
  t.same(pauses, []);
  t.same(sent, [{ method: 'Input.insertText', params: { text: 'hello' } }]);
});

t.test("humanize on: key by key even without slowly, a person's uneven gap before each key after the first", async (t) => {
  const { pauses, sent } = await typeWith(true, 'hello world', false);
  t.equal(pauses.length, 10, 'one gap between each two keys');
  t.ok(Math.min(...pauses) >= 25, `no key follows another at once (min ${Math.min(...pauses)} ms)`);
  t.equal(sent.filter((s) => s.params.type === 'keyDown').map((s) => s.params.text).join(''), 'hello world');
});
