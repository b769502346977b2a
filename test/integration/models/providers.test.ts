/**
 * The three provider adapters against the loopback fake providers, through the real SDKs: what each family
 * receives (its own wire format, its own auth header and nothing else carrying the key) and what comes back
 * (text, tool calls, JSON, usage, stop reason, errors without the key, timeouts, cancels).
 */
import t from 'tap';
import { isBrowserdError, type BrowserdError } from '../../../protocol/errors.js';
import { PROVIDER_TURNS } from '../../../daemon/models/providers/index.js';
import { scrubKey } from '../../../daemon/models/providers/failure.js';
import { PROVIDERS, type Provider, type ProviderRequest, type TurnRequest } from '../../../daemon/models/types.js';
import { startFakeModels, type FakeModels, type RecordedRequest } from '../../fixtures/fake-models.js';

const fake: FakeModels = await startFakeModels();
t.teardown(() => fake.close());

const KEYS: Record<Provider, string> = {
  openai: 'sk-test-openai-5f1e2d3c4b5a69788796a5b4',
  anthropic: 'sk-ant-test-anthropic-0a1b2c3d4e5f6a7b',
  gemini: 'AIzaTestGeminiKey_9f8e7d6c5b4a3f2e1d',
};
const AUTH_HEADER: Record<Provider, string> = { openai: 'authorization', anthropic: 'x-api-key', gemini: 'x-goog-api-key' };
const MODEL_NAME: Record<Provider, string> = { openai: 'gpt-test', anthropic: 'claude-test', gemini: 'gemini-test' };
const SYSTEM = 'You are a careful test model.';

function baseUrl(p: Provider): string {
  return p === 'openai' ? fake.config.openaiBaseUrl : p === 'anthropic' ? fake.config.anthropicBaseUrl : fake.config.geminiBaseUrl;
}

function request(p: Provider, turn: TurnRequest, over: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    ...turn,
    model: { id: `${p}/${MODEL_NAME[p]}`, provider: p, name: MODEL_NAME[p], default: false },
    key: KEYS[p],
    baseUrl: baseUrl(p),
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    ...over,
  };
}

/** The requests this test sent, by waiting for nothing: the adapters await their answers. */
function sentSince(mark: number): RecordedRequest[] {
  return fake.requests.slice(mark);
}

async function failure(p: Promise<unknown>): Promise<BrowserdError> {
  try {
    await p;
  } catch (e) {
    if (isBrowserdError(e)) return e;
    throw e;
  }
  throw new Error('the call did not fail');
}

const lookup = { name: 'lookup', description: 'Look a word up.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } };
const other = { name: 'note', description: 'Write a note.', parameters: { type: 'object', properties: { text: { type: 'string' } } } };

for (const p of PROVIDERS) {
  t.test(`${p}: a text answer, the family's wire format and its key in its own header only`, async (t) => {
    const mark = fake.requests.length;
    fake.script(p, { text: 'Hello there.', usage: { input: 123, output: 7 } });
    const r = await PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'Say hello.' }], maxOutputTokens: 321 }));
    t.same(r, { text: 'Hello there.', toolCalls: [], usage: { input: 123, output: 7 }, stop: 'end' });
    const [sent] = sentSince(mark);
    t.equal(sentSince(mark).length, 1, 'one request per turn');
    t.equal(sent.provider, p);
    if (p === 'openai') {
      t.equal(sent.path, '/v1/chat/completions');
      t.same(sent.body.messages, [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Say hello.' }]);
      t.equal(sent.body.max_completion_tokens, 321);
      t.equal(sent.body.model, 'gpt-test');
      t.equal(sent.headers.authorization, `Bearer ${KEYS.openai}`);
    } else if (p === 'anthropic') {
      t.equal(sent.path, '/v1/messages');
      t.equal(sent.body.system, SYSTEM);
      t.same(sent.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }]);
      t.equal(sent.body.max_tokens, 321);
      t.equal(sent.body.model, 'claude-test');
      t.equal(sent.headers['x-api-key'], KEYS.anthropic);
    } else {
      t.equal(sent.path, '/v1beta/models/gemini-test:generateContent');
      t.match(sent.body.systemInstruction, { parts: [{ text: SYSTEM }] });
      t.same(sent.body.contents, [{ role: 'user', parts: [{ text: 'Say hello.' }] }]);
      t.equal(sent.body.generationConfig.maxOutputTokens, 321);
      t.equal(sent.headers['x-goog-api-key'], KEYS.gemini);
    }
    for (const [name, value] of Object.entries(sent.headers)) {
      if (name !== AUTH_HEADER[p]) t.notOk(value.includes(KEYS[p]), `the key is not in ${name}`);
      for (const q of PROVIDERS) if (q !== p) t.notOk(value.includes(KEYS[q]), `no other family's key in ${name}`);
    }
    for (const h of Object.values(AUTH_HEADER)) if (h !== AUTH_HEADER[p]) t.notOk(h in sent.headers, `no ${h} header`);
    t.notOk(sent.bodyText.includes(KEYS[p]), 'the key is not in the body');
    t.notOk(sent.path.includes(KEYS[p]), 'the key is not in the URL');
  });

  t.test(`${p}: a tool call round trip in the family's own form`, async (t) => {
    const mark = fake.requests.length;
    fake.script(p, { toolCalls: [{ name: 'lookup', args: { q: 'browserd' } }] }, { text: 'It is a browser service.' });
    const ask: TurnRequest = { system: SYSTEM, messages: [{ role: 'user', content: 'What is browserd?' }], tools: [lookup, other], toolChoice: 'auto' };
    const first = await PROVIDER_TURNS[p](request(p, ask));
    t.equal(first.stop, 'tool');
    t.equal(first.text, '');
    t.equal(first.toolCalls.length, 1);
    const call = first.toolCalls[0];
    t.match(call, { name: 'lookup', args: { q: 'browserd' } });
    t.ok(call.id.length > 0, 'the call has an id to answer');

    const second = await PROVIDER_TURNS[p](
      request(p, { ...ask, messages: [...ask.messages, { role: 'assistant', toolCalls: first.toolCalls }, { role: 'tool', callId: call.id, name: call.name, content: '{"answer":42}' }] }),
    );
    t.equal(second.text, 'It is a browser service.');
    t.equal(second.stop, 'end');

    const [a, b] = sentSince(mark);
    if (p === 'openai') {
      t.same(a.body.tools[0], { type: 'function', function: lookup });
      t.equal(a.body.tool_choice, 'auto');
      t.same(b.body.messages.slice(2), [
        { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'lookup', arguments: '{"q":"browserd"}' } }] },
        { role: 'tool', tool_call_id: call.id, content: '{"answer":42}' },
      ]);
    } else if (p === 'anthropic') {
      t.same(a.body.tools[0], { name: 'lookup', description: lookup.description, input_schema: lookup.parameters });
      t.same(a.body.tool_choice, { type: 'auto' });
      t.same(b.body.messages.slice(1), [
        { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'lookup', input: { q: 'browserd' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '{"answer":42}' }] },
      ]);
    } else {
      t.same(a.body.tools[0].functionDeclarations[0], { name: 'lookup', description: lookup.description, parametersJsonSchema: lookup.parameters });
      t.same(a.body.toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
      // Gemini sent the call without an id, so none goes back: the result is matched by name and order.
      t.same(b.body.contents.slice(1), [
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'browserd' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { result: '{"answer":42}' } } }] },
      ]);
    }
  });

  t.test(`${p}: a forced tool, and "required"`, async (t) => {
    const mark = fake.requests.length;
    fake.script(p, { toolCalls: [{ name: 'note', args: { text: 'hi' } }] }, { toolCalls: [{ name: 'lookup', args: { q: 'x' } }] });
    const forced = await PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'Note it.' }], tools: [lookup, other], toolChoice: { name: 'note' } }));
    t.match(forced.toolCalls, [{ name: 'note', args: { text: 'hi' } }]);
    const required = await PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'Use a tool.' }], tools: [lookup, other], toolChoice: 'required' }));
    t.match(required.toolCalls, [{ name: 'lookup', args: { q: 'x' } }]);
    const [a, b] = sentSince(mark);
    if (p === 'openai') {
      t.same(a.body.tool_choice, { type: 'function', function: { name: 'note' } });
      t.equal(b.body.tool_choice, 'required');
    } else if (p === 'anthropic') {
      t.same(a.body.tool_choice, { type: 'tool', name: 'note' });
      t.same(b.body.tool_choice, { type: 'any' });
    } else {
      t.same(a.body.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['note'] } });
      t.same(b.body.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
    }
  });

  t.test(`${p}: JSON output in the family's structured form`, async (t) => {
    const mark = fake.requests.length;
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 }, born: { type: 'integer' } },
      required: ['name'],
      additionalProperties: false,
    };
    fake.script(p, { json: { name: 'Ada Lovelace', born: 1815 } });
    const r = await PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'Who?' }], jsonSchema: { name: 'person', schema } }));
    t.same(JSON.parse(r.text), { name: 'Ada Lovelace', born: 1815 });
    t.same(r.toolCalls, [], 'the structured answer is not a tool call to run');
    t.equal(r.stop, 'end');
    const [sent] = sentSince(mark);
    if (p === 'openai') {
      t.same(sent.body.response_format, { type: 'json_schema', json_schema: { name: 'person', schema, strict: false } });
    } else if (p === 'anthropic') {
      t.same(sent.body.tool_choice, { type: 'tool', name: 'person' });
      t.match(sent.body.tools, [{ name: 'person', input_schema: schema }]);
    } else {
      t.equal(sent.body.generationConfig.responseMimeType, 'application/json');
      t.same(sent.body.generationConfig.responseJsonSchema, {
        type: 'object',
        properties: { name: { type: 'string' }, born: { type: 'integer' } },
        required: ['name'],
        additionalProperties: false,
      }, 'keywords Gemini refuses ($schema, minLength) are gone');
    }
  });

  t.test(`${p}: usage is what the provider reported`, async (t) => {
    const mark = fake.requests.length;
    fake.script(p, { text: 'one' }, { toolCalls: [{ name: 'lookup', args: { q: 'y' } }], usage: { input: 5000, output: 250 } });
    const a = await PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'x'.repeat(400) }] }));
    const b = await PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'Go.' }], tools: [lookup] }));
    const [ra] = sentSince(mark);
    t.same(a.usage, { input: Math.round(ra.bodyText.length / 4), output: 10 }, "the fake's default count");
    t.same(b.usage, { input: 5000, output: 250 });
  });

  t.test(`${p}: HTTP errors are action_failed naming provider and status, never the key`, async (t) => {
    for (const status of [401, 429, 500]) {
      const mark = fake.requests.length;
      const said = `Incorrect API key provided: ${KEYS[p]} (starts ${KEYS[p].slice(0, 8)}****)`;
      // 429 and 500 are retried once (maxRetries 1): both attempts fail.
      const tries = status === 401 ? 1 : 2;
      for (let i = 0; i < tries; i++) fake.script(p, { status, error: said });
      const e = await failure(PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'hi' }] })));
      t.equal(e.code, 'action_failed', `${status}`);
      t.match(e.message, new RegExp(`^${p} answered HTTP ${status} \\(its words are the page text of this error\\)$`));
      t.match(e.pageText, /^Incorrect API key provided/, "the provider's words are the error's page text (they can echo what it was sent)");
      t.same({ ...e.details, pageText: undefined }, { provider: p, status, pageText: undefined });
      t.ok(e.next, 'a next step');
      const everything = JSON.stringify({ ...e.toBody(), stack: e.stack });
      t.notOk(everything.includes(KEYS[p]), 'the key is not in the error');
      t.notOk(everything.includes(KEYS[p].slice(0, 8)), 'nor its start');
      t.equal(sentSince(mark).length, tries, `${tries} request(s)`);
    }
  });

  t.test(`${p}: a provider slower than the timeout is timeout`, async (t) => {
    fake.delayMs = 3000;
    t.teardown(() => {
      fake.delayMs = 0;
    });
    const started = Date.now();
    const e = await failure(PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'slow' }] }, { timeoutMs: 250 })));
    t.equal(e.code, 'timeout');
    t.match(e.message, /did not answer within/);
    t.same(e.details, { provider: p });
    t.ok(Date.now() - started < 3000, 'gave up before the fake answered');
  });

  t.test(`${p}: our cancel is timeout "the call was cancelled"`, async (t) => {
    const ac = new AbortController();
    fake.delayMs = 3000;
    // Cancel once the request has reached the provider: the abort has to stop a call in flight.
    fake.fallback = () => {
      ac.abort();
      return { text: 'too late' };
    };
    t.teardown(() => {
      fake.delayMs = 0;
      fake.fallback = undefined;
    });
    const e = await failure(PROVIDER_TURNS[p](request(p, { system: SYSTEM, messages: [{ role: 'user', content: 'cancel me' }] }, { signal: ac.signal })));
    t.equal(e.code, 'timeout');
    t.equal(e.message, 'the call was cancelled');
  });
}

t.test('anthropic: a JSON answer whose schema is not an object travels wrapped and comes back unwrapped', async (t) => {
  const mark = fake.requests.length;
  fake.script('anthropic', { toolCalls: [{ name: 'tags', args: { value: ['a', 'b'] } }] });
  const schema = { type: 'array', items: { type: 'string' } };
  const r = await PROVIDER_TURNS.anthropic(request('anthropic', { system: SYSTEM, messages: [{ role: 'user', content: 'Tags?' }], jsonSchema: { name: 'tags', schema } }));
  t.same(JSON.parse(r.text), ['a', 'b']);
  t.match(sentSince(mark)[0].body.tools, [{ name: 'tags', input_schema: { type: 'object', properties: { value: schema }, required: ['value'] } }]);
});

t.test('the key scrub removes the key and runs holding a long piece of it', async (t) => {
  const key = 'sk-proj-abcdefghijklmnop123456';
  t.equal(scrubKey(`bad key ${key}.`, key), 'bad key [key].');
  t.equal(scrubKey('bad key sk-proj-a**** there', key), 'bad key [key] there', 'a masked key showing its start');
  t.equal(scrubKey('bad key ****mnop123456', key), 'bad key [key]', 'a masked key showing its end');
  t.equal(scrubKey('rate limit reached for gpt-test', key), 'rate limit reached for gpt-test', 'text without the key stays');
  t.equal(scrubKey('x'.repeat(500), key).length, 200);
});
