/** Interaction tools: click, type, fill, press. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { SnapshotAfterParam, withSnapshotAfter } from './snapshot-after.js';
import { params, RefParam, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { afterAction, type Tab } from '../browser/tab.js';
import { mouseClick, pressKey, typeText } from '../browser/input.js';
import { parseChord } from '../browser/keys.js';
import type { PointResult } from '../../injected/api.js';
import { cancelledError, type ToolContext } from '../call/context.js';
import { assertNoEditingKeys } from '../secrets/secret-documents.js';
import { pageUrl, type ResponseBuilder } from '../call/response.js';
import { TabIdField, UrlField } from '../call/output.js';

/** What an input tool reports: the tab and where it is after the action (a click may have navigated it). */
export const TabAtUrl = Type.Object({ tab: TabIdField, url: UrlField });

/** Key-by-key typing costs a few CDP round trips a character: more than this is a mistake or an attack. */
export const SLOW_TYPE_MAX_CHARS = 5000;

/**
 * Resolves a ref to a clickable point; Tab.call refuses with the reason (covered, disabled, hidden, stale).
 * A point asked for ahead (alongside the gate's look) is used when it came back; a failed one is asked again
 * so the failure carries its own reason.
 */
export async function pointForRef(tab: Tab, ref: string, ahead?: Promise<PointResult | undefined>): Promise<PointResult> {
  return (ahead && (await ahead)) || tab.call('pointFor', ref);
}

/**
 * With `snapshot: true` the snapshot that follows in the same answer starts with the tab, its mode and where it
 * is, so the action's own line does not say it first.
 */
function report(out: Pick<ResponseBuilder, 'set' | 'text' | 'fullUrl'>, tab: Tab, what: string, snapshot?: boolean) {
  out.set('tab', tab.id);
  out.set('url', tab.url);
  if (snapshot) {
    out.text(what);
    return;
  }
  out.text(`${what} Tab ${tab.id} is at ${pageUrl(tab.url)}.`);
  out.fullUrl(`address of ${tab.id}`, tab.url);
}

/** Clicks a ref that the pipeline has already put through the policy gate (which asked for its point). */
async function clickRef(ctx: ToolContext, tab: Tab, ref: string, mode: 'mouse' | 'dom', opts: { button?: 'left' | 'right' | 'middle'; clickCount?: number }) {
  const ahead = ctx.takePointAhead(ref);
  if (mode === 'dom') {
    await tab.call('clickDom', ref);
  } else {
    const { x, y } = await pointForRef(tab, ref, ahead);
    await mouseClick(tab, x, y, opts);
  }
}

export const inputTools = [
  defineTool({
    name: 'browser_click',
    title: 'Click',
    description:
      'Clicks an element (ref) or a viewport point (x, y in CSS px). mode mouse (default): real pointer events, refused on a covered or disabled element; dom: clicks the element itself, covered or not.',
    input: params({
      ref: Type.Optional(RefParam()),
      x: Type.Optional(Type.Number({ minimum: 0, maximum: 100000 })),
      y: Type.Optional(Type.Number({ minimum: 0, maximum: 100000 })),
      mode: Type.Optional(StringEnum(['mouse', 'dom'], { default: 'mouse' })),
      button: Type.Optional(StringEnum(['left', 'right', 'middle'])),
      doubleClick: Type.Optional(Type.Boolean()),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    output: withSnapshotAfter(TabAtUrl),
    effect: 'write',
    touches: [{ kind: 'click', ref: 'ref', point: ['x', 'y'] }],
    check(args) {
      const hasPoint = args.x !== undefined || args.y !== undefined;
      if (!!args.ref === hasPoint) throw new BrowserdError('validation_error', 'browser_click takes a ref, or x and y', { next: 'Pass ref from browser_snapshot, or both x and y.' });
      if (hasPoint && (args.x === undefined || args.y === undefined)) throw new BrowserdError('validation_error', 'x and y go together', { next: 'Pass both x and y.' });
      if (hasPoint && args.mode === 'dom') throw new BrowserdError('validation_error', 'mode "dom" needs a ref', { next: 'Pass a ref, or use mode "mouse" with x/y.' });
    },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const mark = tab.mark();
      const opts = { button: args.button, clickCount: args.doubleClick ? 2 : 1 };
      if (args.ref) await clickRef(ctx, tab, args.ref, args.mode ?? 'mouse', opts);
      else await mouseClick(tab, args.x!, args.y!, opts);
      await afterAction(tab, mark);
      report(out, tab, `Clicked ${args.ref ?? `(${args.x}, ${args.y})`}.`, args.snapshot);
    },
  }),
  defineTool({
    name: 'browser_type',
    title: 'Type text',
    description: 'Types text as a person would, into ref or the focused element. Never a secret (browser_fill_secret).',
    input: params({
      text: Type.String({ maxLength: 100000 }),
      ref: Type.Optional(RefParam()),
      clear: Type.Optional(Type.Boolean()),
      submit: Type.Optional(Type.Boolean({ description: 'Press Enter after.' })),
      slowly: Type.Optional(Type.Boolean({ description: 'A key event per character (at most 5,000).' })),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    output: withSnapshotAfter(TabAtUrl),
    effect: 'write',
    touches: [{ kind: 'fill', ref: 'ref' }, { kind: 'submit', when: 'submit', ref: 'ref' }],
    check(args) {
      if (args.slowly && args.text.length > SLOW_TYPE_MAX_CHARS) {
        throw new BrowserdError('validation_error', `"text" is ${args.text.length} characters; with slowly it may be at most ${SLOW_TYPE_MAX_CHARS} (one key event each)`, { next: 'Type it without slowly, or in parts.' });
      }
    },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      await assertNoEditingKeys(tab);
      const mark = tab.mark();
      if (args.ref) {
        await tab.call('focus', args.ref);
        if (args.clear) await tab.call('fill', args.ref, '');
      }
      await typeText(tab, args.text, args.slowly, ctx.signal, cancelledError);
      if (args.submit) {
        await pressKey(tab, parseChordOrThrow('Enter').key);
        await afterAction(tab, mark);
      }
      report(out, tab, `Typed ${args.text.length} characters${args.submit ? ' and pressed Enter' : ''}.`, args.snapshot);
    },
  }),
  defineTool({
    name: 'browser_fill',
    title: 'Fill a field',
    description: 'Sets a field: text; option text or value for a select; "true"/"false" for a checkbox or radio. Never a secret.',
    input: params({ ref: RefParam(), value: Type.String({ maxLength: 100000 }), tab: TabParam }),
    output: TabAtUrl,
    effect: 'write',
    hints: { idempotent: true },
    touches: [{ kind: 'fill', ref: 'ref' }],
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const r = await tab.call('fill', args.ref, args.value);
      report(out, tab, `Filled ${args.ref} (${r.kind}).`);
      if (r.note) out.page(`note on ${args.ref}`, r.note);
    },
  }),
  defineTool({
    name: 'browser_press',
    title: 'Press a key',
    description: 'Presses a key (Enter, Escape, Tab, ArrowDown, a character) or chord (Control+A) on the focused element. Enter counts as a submit.',
    input: params({ key: Type.String({ minLength: 1, maxLength: 64 }), snapshot: SnapshotAfterParam, tab: TabParam }),
    output: withSnapshotAfter(TabAtUrl),
    effect: 'write',
    touches: [{ kind: 'key', key: 'key' }],
    check(args) {
      parseChordOrThrow(args.key);
    },
    async handle(ctx, args, out) {
      const chord = parseChordOrThrow(args.key);
      const tab = await ctx.tab(args.tab);
      await assertNoEditingKeys(tab, chord);
      const mark = tab.mark();
      await pressKey(tab, chord.key, chord.modifiers);
      await afterAction(tab, mark);
      report(out, tab, `Pressed ${args.key}.`, args.snapshot);
    },
  }),
];

function parseChordOrThrow(key: string) {
  const c = parseChord(key);
  if ('error' in c) throw new BrowserdError('validation_error', c.error, { next: 'Use a key name such as Enter, Escape, Tab, ArrowDown, a single character, or a chord like Control+A.' });
  return c;
}
