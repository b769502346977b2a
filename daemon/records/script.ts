/**
 * A recording as a script a person can read, keep and run: TypeScript calling /v1/tools/* through the
 * @browserd/client package (run it with `npx tsx`), one commented block per step naming the tool, the element
 * and the value, and refs found again by locator at run time; or the same plan as JSON. Page-controlled text
 * (element names, locators, URLs) only ever reaches the script as a JSON string literal or inside a one-line
 * comment with line breaks removed, so a page cannot write code into it. Steps that typed a vault value stop
 * the script with a note: the value was never kept.
 */
import type { Recording, Step } from '../../storage/records.js';
import type { ToolLookup } from '../call/define.js';
import { ARGS_OMITTED, hasSecretPlaceholder, refArgs, takesTab } from './args.js';

export type ScriptFormat = 'typescript' | 'json';

/** A comment's text on one line: no line terminator can end the comment early. */
const oneLine = (s: string, max = 160) => {
  const flat = s.replace(/[\r\n\u2028\u2029]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};
const lit = (v: unknown) => JSON.stringify(v);

/** Why a step cannot run as recorded, or undefined. */
function unplayable(step: Step): string | undefined {
  if (step.outcome !== 'ok') return `failed while recording (${step.outcome}): not repeated`;
  if (step.args.omitted === ARGS_OMITTED) return 'its arguments were too large to keep';
  if (hasSecretPlaceholder(step.args)) return 'it typed a vault value, which recordings never keep';
  for (const { key } of refArgs(step.args)) if (!step.locators[key]) return `no locator was recorded for ${key}`;
  return undefined;
}

/** "textbox "Item" (input[name="item"])" for a step's element(s). */
function elementOf(step: Step): string {
  return Object.entries(step.locators).map(([k, l]) => `${k === 'ref' ? '' : `${k}: `}${l.role ?? 'element'}${l.name ? ` "${l.name}"` : ''} (${l.css})`).join(', ');
}

/** The value a step typed, filled, chose or navigated to, for its comment. */
function valueOf(step: Step): string | undefined {
  const a = step.args;
  for (const k of ['text', 'value', 'values', 'url', 'key', 'fields']) if (a[k] !== undefined) return `${k} ${JSON.stringify(a[k])}`;
  return undefined;
}

export function scriptJson(rec: Recording, steps: Step[]): Record<string, unknown> {
  return {
    recording: rec.id,
    ...(rec.name ? { name: rec.name } : {}),
    mode: rec.mode,
    ...(rec.profile ? { profile: rec.profile } : {}),
    ...(rec.context ? { context: rec.context } : {}),
    startUrl: rec.startUrl,
    steps: steps.map((s) => ({
      seq: s.seq,
      tool: s.tool,
      args: Object.fromEntries(Object.entries(s.args).filter(([k]) => k !== 'tab')),
      locators: s.locators,
      ...(unplayable(s) ? { skip: unplayable(s) } : {}),
    })),
  };
}

export function scriptTypescript(rec: Recording, steps: Step[], tool: ToolLookup): string {
  const open = { mode: rec.mode, ...(rec.profile ? { profile: rec.profile } : {}), ...(rec.context ? { context: rec.context } : {}) };
  const lines = [
    `// Recording ${rec.id}${rec.name ? ` "${oneLine(rec.name)}"` : ''}: ${rec.steps} step(s) on a ${rec.mode} tab, made by browserd.`,
    '// Run: BROWSERD_URL=http://127.0.0.1:8787 BROWSERD_TOKEN=… npx tsx this-file.ts',
    "// It opens a new tab, goes where the recording started, and repeats each step through /v1/tools/*.",
    "import { BrowserdClient } from '@browserd/client';",
    '',
    "const client = new BrowserdClient({ baseUrl: process.env.BROWSERD_URL ?? 'http://127.0.0.1:8787', token: process.env.BROWSERD_TOKEN ?? '' });",
    'const call = (name: string, args: Record<string, unknown>): Promise<any> => client.tool(name as any, args as any);',
    '',
    '/** The ref of the one element a recorded CSS locator matches now, waiting up to 10 s for the page to show it. */',
    'async function find(tab: string, css: string): Promise<string> {',
    '  const until = Date.now() + 10_000;',
    '  for (;;) {',
    '    const r = await call(\'browser_query\', { tab, css, limit: 2, includeHidden: true });',
    '    if (r.total === 1) return r.matches[0].ref;',
    '    if (Date.now() > until) throw new Error(`the locator ${css} matches ${r.total} elements, not one`);',
    '    await new Promise((done) => setTimeout(done, 200));',
    '  }',
    '}',
    '',
    'async function main() {',
    `  const { tab } = await call('browser_open', ${lit(open)});`,
    ...(/^https?:/.test(rec.startUrl) ? [`  await call('browser_navigate', { tab, url: ${lit(rec.startUrl)} });`] : []),
  ];
  for (const step of steps) {
    const element = elementOf(step);
    const value = valueOf(step);
    lines.push('', `  // Step ${step.seq}: ${step.tool}${element ? ` on ${oneLine(element)}` : ''}${value ? `, ${oneLine(value)}` : ''}`);
    const why = unplayable(step);
    if (why) {
      if (step.outcome !== 'ok') lines.push(`  // Skipped: ${oneLine(why)}.`);
      else lines.push(`  throw new Error(${lit(`step ${step.seq} cannot run as recorded: ${why}`)});`);
      continue;
    }
    const parts: string[] = [];
    if (takesTab(tool, step.tool)) parts.push('tab');
    for (const [k, v] of Object.entries(step.args)) {
      if (k === 'tab') continue;
      if ((k === 'ref' || k === 'fromRef' || k === 'toRef') && step.locators[k]) parts.push(`${k}: await find(tab, ${lit(step.locators[k]!.css)})`);
      else if (k === 'fields' && v && typeof v === 'object') {
        const entries = Object.entries(v as Record<string, unknown>).map(([ref, val]) => `[await find(tab, ${lit(step.locators[`fields.${ref}`]!.css)})]: ${lit(val)}`);
        parts.push(`fields: { ${entries.join(', ')} }`);
      } else parts.push(`${lit(k)}: ${lit(v)}`);
    }
    lines.push(`  await call(${lit(step.tool)}, { ${parts.join(', ')} });`);
  }
  lines.push('', "  await call('browser_close_tab', { tab });", "  console.log('done');", '}', '', 'main().catch((e) => {', '  console.error(e);', '  process.exit(1);', '});', '');
  return lines.join('\n');
}
