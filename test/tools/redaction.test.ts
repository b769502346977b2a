/**
 * Redaction end to end: a vault value or a code the daemon filled never reaches a result (MCP or REST, success
 * or error), an audit entry or a log line, even when the page shows it and a script reads it back out.
 */
import t from 'tap';
import { call, refOf } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { fingerprint } from '../../daemon/call/redact.js';

/** A quote, a space and a backslash: the JSON-escaped and URL-encoded forms differ from the value itself. */
const PASSWORD = 'Pa$$ "w0rd" \\ 9z';
const API_KEY = 'sk-live-R3DACT-me-4821';
const CODE = '482913';
/** The same password, as HTML in the page (the page shows it; the test, not the agent, knows it). */
const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

let stack: Stack;
let tab: string;
t.before(async () => {
  stack = await startStack();
  const put = await stack.d.rest(stack.token, 'PUT', '/v1/vault/127.0.0.1', { fields: { password: PASSWORD, api_key: API_KEY } });
  if (put.status !== 200) throw new Error(JSON.stringify(put.json));
  stack.d.daemon.env.filledCodes.remember('alice', CODE);
  stack.site.route(
    '/filled',
    html(`<label>Password <input type="password" id="pw" value="${attr(PASSWORD)}"></label><label>Key <input id="key" value="${API_KEY}"></label><p id="code">Your code: ${CODE}</p><label>Note <input id="note"></label>`),
  );
  const opened = await call(stack.client, 'browser_open', { url: `${stack.site.url}/filled`, mode: 'act' });
  if (opened.isError) throw new Error(opened.text);
  tab = /\b(t\d+)\b/.exec(opened.text)![1];
});
t.teardown(() => stack.stop());

const noSecret = (t: Pick<typeof import('tap').default, 'notOk'>, text: string, what: string) => {
  for (const v of [PASSWORD, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD), API_KEY, CODE]) t.notOk(text.includes(v), `${what}: holds no ${v.slice(0, 3)}...`);
};

t.test("browser_evaluate reading a filled input's value shows [secret hidden], over MCP and REST", async (t) => {
  const mcp = await call(stack.client, 'browser_evaluate', { tab, js: "document.querySelector('#pw').value" });
  t.notOk(mcp.isError, mcp.text);
  t.match(mcp.text, '[secret hidden]');
  noSecret(t, mcp.text, 'MCP result');
  const rest = await stack.rest('browser_evaluate', { tab, js: "document.querySelector('#pw').value + ' / ' + document.querySelector('#key').value" });
  t.equal(rest.status, 200);
  t.match(rest.json.text, '[secret hidden] / [secret hidden]');
  noSecret(t, JSON.stringify(rest.json), 'REST result');
});

t.test('a value is hidden JSON-escaped and URL-encoded too, and a filled code like a vault value', async (t) => {
  const json = await call(stack.client, 'browser_evaluate', { tab, js: "({ pw: document.querySelector('#pw').value })" });
  t.match(json.text, /\{"pw":"\[secret hidden\]"\}/, 'JSON output with the escaped value hidden');
  const url = await call(stack.client, 'browser_evaluate', { tab, js: "'https://x.test/?p=' + encodeURIComponent(document.querySelector('#pw').value)" });
  t.match(url.text, 'https://x.test/?p=[secret hidden]');
  const code = await call(stack.client, 'browser_evaluate', { tab, js: "document.querySelector('#code').textContent" });
  t.match(code.text, 'Your code: [secret hidden]');
  const read = await call(stack.client, 'browser_snapshot', { tab });
  for (const r of [json, url, code, read]) noSecret(t, r.text, 'result');
});

t.test('an error that quotes a value is scrubbed too (MCP and REST)', async (t) => {
  const js = "(() => { throw new Error('rejected: ' + document.querySelector('#pw').value + ' ' + document.querySelector('#code').textContent) })()";
  const mcp = await call(stack.client, 'browser_evaluate', { tab, js });
  t.ok(mcp.isError, 'the script threw');
  t.match(mcp.text, /rejected: \[secret hidden\]/);
  noSecret(t, mcp.text, 'MCP error');
  const rest = await stack.rest('browser_evaluate', { tab, js });
  t.equal(rest.json.ok, false);
  t.match(rest.json.error.details.pageText, /rejected: \[secret hidden\]/);
  noSecret(t, JSON.stringify(rest.json), 'REST error');
});

t.test('a value saved after the page loaded is hidden from the very next call', async (t) => {
  const late = 'late-added-S3cret';
  await stack.d.rest(stack.token, 'PUT', '/v1/vault/127.0.0.1', { fields: { note: late } });
  const r = await call(stack.client, 'browser_evaluate', { tab, js: `'x' + ${JSON.stringify(late.slice(0, 6))} + ${JSON.stringify(late.slice(6))}` });
  t.match(r.text, 'x[secret hidden]');
});

t.test('the audit never holds a value, nor a hash that would confirm one', async (t) => {
  const snap = await call(stack.client, 'browser_snapshot', { tab });
  const ref = refOf(snap.text, /textbox "Note"/);
  // An agent that somehow holds a value (it read it before redaction existed, or guessed it) types it in.
  t.notOk((await call(stack.client, 'browser_type', { tab, ref, text: PASSWORD })).isError);
  t.notOk((await call(stack.client, 'browser_evaluate', { tab, js: `${JSON.stringify(API_KEY)}.length` })).isError);
  await call(stack.client, 'browser_navigate', { tab, url: `${stack.site.url}/filled?q=${encodeURIComponent(API_KEY)}` });
  // A call refused before validation is audited with its raw arguments: those are checked too.
  const noSuchTool: any = await call(stack.client, 'browser_no_such_tool', { tab, query: `the ${CODE} box` }).catch((e) => e);
  t.equal(noSuchTool.code, -32602, 'an unknown tool is a protocol error, audited all the same');
  t.notOk(String(noSuchTool.message).includes(CODE), 'and its message holds no value');
  const entries = stack.d.daemon.env.audit.all(200).filter((e) => e.user === 'alice');
  const typed = entries.find((e) => e.tool === 'browser_type');
  t.equal((typed?.args as any).text, '[secret]', 'typed text equal to a value: no fingerprint');
  const ev = entries.find((e) => e.tool === 'browser_evaluate' && (e.args as any).js === '[secret]');
  t.ok(ev, 'code containing a value: no fingerprint');
  const nav = entries.find((e) => e.tool === 'browser_navigate');
  t.equal((nav?.args as any).url, '[secret]', 'a URL carrying a value (percent-encoded)');
  const unknown = entries.find((e) => e.tool === 'browser_no_such_tool');
  t.equal((unknown?.args as any).query, '[secret]', 'raw arguments of a refused call');
  const all = JSON.stringify(entries);
  t.notOk(all.includes(fingerprint(PASSWORD)), "the password's fingerprint is not stored");
  t.notOk(all.includes(fingerprint(`${JSON.stringify(API_KEY)}.length`)), "the evaluated code's fingerprint is not stored");
  noSecret(t, all, 'audit');
  t.ok(entries.some((e) => e.tool === 'browser_evaluate' && typeof (e.args as any).js === 'string' && (e.args as any).js.startsWith('[') && (e.args as any).js.includes('sha256')), 'code without a value keeps its fingerprint');
});

t.test('log lines are scrubbed: an error logged with a value in it shows it hidden', async (t) => {
  const { env } = stack.d.daemon;
  const before = stack.d.logLines.length;
  env.log.error({ user: 'alice', err: `page said: ${PASSWORD} and ${CODE}` }, `tool failed on ${API_KEY}`);
  env.log.child({ detail: API_KEY }).warn('a child logger too');
  const lines = stack.d.logLines.slice(before);
  t.equal(lines.length, 2);
  t.match(lines[0], /page said: \[secret hidden\] and \[secret hidden\]/);
  t.match(lines[0], /tool failed on \[secret hidden\]/);
  t.match(lines[1], /"detail":"\[secret hidden\]"/);
  for (const l of lines) noSecret(t, l, 'log line');
  t.doesNotThrow(() => JSON.parse(lines[0]), 'the line is still JSON');
});
