/**
 * The action cache: a 5-step act sequence (fill two fields, pick an option, tick a box, press Submit) run twice
 * on fresh loads of the same page, through POST /v1/tabs/{id}/act, against the loopback fake OpenAI answering
 * in 500 ms (a fast hosted model's typical turn). The first run asks the model at every step; the second should
 * replay every step from the cache: no model request, ≥ 10x faster. The page's own request log shows both runs
 * had the same effect (one form POST each, with the same body).
 */
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { html, startSite } from '../test/fixtures/site.js';
import { startFakeModels, type RecordedRequest, type ScriptedTurn } from '../test/fixtures/fake-models.js';
import { ms, now, printTable } from './lib.js';

const MODEL_DELAY_MS = 500;

const PAGE = html(`<h1>Sign up</h1>
  <form id="f" onsubmit="event.preventDefault(); fetch('/submitted',{method:'POST',body:new URLSearchParams(new FormData(this))}).then(()=>{document.getElementById('thanks').hidden=false})">
    <label>Name <input name="name"></label>
    <label>Email <input name="email" type="email"></label>
    <label>Colour <select name="colour"><option>Red</option><option>Green</option><option>Blue</option></select></label>
    <label><input type="checkbox" name="subscribe"> Subscribe</label>
    <button type="submit">Submit</button>
  </form>
  <p id="thanks" hidden>Thanks!</p>`, '', 'Sign up');

/** Each step: the action, and the call a model would choose for it from the snapshot it was sent. */
const STEPS: { action: string; choose: (snapshot: string) => { name: string; args: Record<string, unknown> } }[] = [
  { action: 'type Ada Lovelace into Name', choose: (s) => ({ name: 'browser_fill', args: { ref: ref(s, /textbox "Name"/), value: 'Ada Lovelace' } }) },
  { action: 'type ada@example.test into Email', choose: (s) => ({ name: 'browser_fill', args: { ref: ref(s, /textbox "Email"/), value: 'ada@example.test' } }) },
  { action: 'choose Blue as the colour', choose: (s) => ({ name: 'browser_select_options', args: { ref: ref(s, /combobox "Colour"/), values: ['Blue'] } }) },
  { action: 'tick Subscribe', choose: (s) => ({ name: 'browser_click', args: { ref: ref(s, /checkbox "Subscribe"/) } }) },
  { action: 'press Submit', choose: (s) => ({ name: 'browser_click', args: { ref: ref(s, /button "Submit"/) } }) },
];

function ref(snapshot: string, element: RegExp): string {
  const line = snapshot.split('\n').find((l) => element.test(l));
  const m = line && /\[ref=(e\d+)\]/.exec(line);
  if (!m) throw new Error(`bench: no element ${element} in the snapshot sent`);
  return m[1];
}

function userText(req: RecordedRequest): string {
  return ((req.body?.messages ?? []) as any[]).filter((m) => m.role === 'user').map((m) => String(m.content)).join('\n');
}

export async function run(): Promise<void> {
  const fake = await startFakeModels();
  fake.delayMs = MODEL_DELAY_MS;
  fake.fallback = (req): ScriptedTurn | undefined => {
    const text = userText(req);
    const step = STEPS.find((s) => text.includes(`Action: ${s.action}\n`));
    return step ? { toolCalls: [step.choose(text)] } : undefined;
  };
  const site = await startSite();
  site.route('/signup', PAGE);
  site.route('/submitted', (_req, res) => {
    res.writeHead(204);
    res.end();
  });
  const d = await startTestDaemon({ models: fake.config });
  try {
    const token = await d.addUser('bench');
    const url = `http://signup.test:${site.port}/signup`;
    const opened = await d.rest(token, 'POST', '/v1/tabs', { url, mode: 'act' });
    if (opened.status !== 201) throw new Error(`open: ${JSON.stringify(opened.json)}`);
    const tab = opened.json.tab as string;
    const runs: { ms: number[]; hits: number; requests: number; body: string }[] = [];
    for (let r = 0; r < 2; r++) {
      if (r > 0) await d.rest(token, 'POST', '/v1/tools/browser_navigate', { tab, url });
      const requests = fake.requests.length;
      const times: number[] = [];
      let hits = 0;
      for (const step of STEPS) {
        const t0 = now();
        const res = await d.rest(token, 'POST', `/v1/tabs/${tab}/act`, { action: step.action });
        times.push(now() - t0);
        if (res.status !== 200) throw new Error(`run ${r + 1}, "${step.action}": ${JSON.stringify(res.json).slice(0, 500)}`);
        if (res.json.cached) hits++;
      }
      const posted = await site.waitFor((q) => q.path === '/submitted' && site.requests.filter((x) => x.path === '/submitted').length === r + 1);
      runs.push({ ms: times, hits, requests: fake.requests.length - requests, body: posted.body });
    }
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const [first, second] = runs;
    const speedup = total(first.ms) / total(second.ms);
    printTable(
      `act-cache: a 5-step act sequence, run twice (fake model answering in ${MODEL_DELAY_MS} ms)`,
      ['run', 'total', ...STEPS.map((_, i) => `step ${i + 1}`), 'cache hits', 'model requests'],
      runs.map((x, i) => [i === 0 ? '1 (model)' : '2 (cache)', ms(total(x.ms)), ...x.ms.map((v) => ms(v)), `${x.hits}/5`, x.requests]),
      [
        `second run ${speedup.toFixed(1)}x faster (target ≥ 10x); every step a cache hit: ${second.hits === 5 ? 'yes' : 'NO'}; model requests in run 2: ${second.requests} (target 0).`,
        `same effect: both runs posted the form ${first.body === second.body ? `with the same body (${first.body})` : `with DIFFERENT bodies: ${first.body} / ${second.body}`}.`,
      ],
    );
  } finally {
    await d.stop();
    await site.close();
    await fake.close();
  }
}
