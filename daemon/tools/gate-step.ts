/**
 * The pipeline's policy step. A tool declares how it touches the page (define.ts, `touches`); this step reads
 * the call's arguments through that declaration, finds the elements each action lands on, and puts every one
 * through the policy gate before the handler runs. Refusals throw; an action that needs approval first is
 * returned, and then the handler does not run at all.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { Tab } from '../browser/tab.js';
import { parseChord } from '../browser/keys.js';
import { gateAction, type ApprovalNeeded, type GatedAction, type GatedPage } from '../policy/gate.js';
import type { SensitiveElement } from '../policy/sensitive.js';
import type { ToolContext } from './context.js';
import type { Touch } from './define.js';

type Args = Record<string, unknown>;

export async function gateTouches(ctx: ToolContext, tab: Tab, touches: readonly Touch[], args: Args): Promise<ApprovalNeeded | undefined> {
  const page: GatedPage = { url: tab.url, tabId: tab.id, tabMode: tab.mode, rules: ctx.env.policies.rules(ctx.user.id), approvals: !!ctx.user.approvals };
  let approval: ApprovalNeeded | undefined;
  // Every action is gated even after one needs approval: a refusal outranks a question to the user.
  for (const touch of touches) {
    for (const action of await actionsOf(ctx, tab, touch, args)) approval = gateAction(page, action) ?? approval;
  }
  return approval;
}

async function actionsOf(ctx: ToolContext, tab: Tab, touch: Touch, args: Args): Promise<GatedAction[]> {
  switch (touch.kind) {
    case 'click': {
      // The click will need the element's point: ask in the same round trip as the gate's element lookup.
      const ref = str(args, touch.ref);
      if (ref) ctx.askPointAhead(tab, ref);
      return [await onTarget(tab, 'click', touch.ref, touch.point, args)];
    }
    case 'drop':
      return [await onTarget(tab, 'drag', touch.ref, touch.point, args)];
    case 'fill':
      return [await onRefOrFocus(tab, 'fill', str(args, touch.ref))];
    case 'file':
      return [await onRefOrFocus(tab, 'upload', str(args, touch.ref))];
    case 'submit':
      return args[touch.when] === true ? [await onRefOrFocus(tab, 'press_enter', str(args, touch.ref))] : [];
    case 'key':
      return keyActions(tab, str(args, touch.key));
    case 'fill_many':
      return fillMany(tab, args[touch.fields]);
    case 'script':
      return [{ action: 'evaluate' }];
    case 'confirm':
      return [{ action: 'allow_confirm' }];
  }
}

/** An action on the element in a ref argument, or at a point (where no element is known to the gate). */
async function onTarget(tab: Tab, action: GatedAction['action'], refArg: string | undefined, point: readonly [string, string] | undefined, args: Args): Promise<GatedAction> {
  const ref = str(args, refArg);
  if (ref) return { action, target: ref, element: await elementOf(tab, ref) };
  const x = point && args[point[0]];
  const y = point && args[point[1]];
  if (typeof x === 'number' && typeof y === 'number') return { action, target: `(${x}, ${y})`, atPoint: true };
  return { action };
}

/** An action on the element in a ref argument, or on the element that has focus (where keys and text go). */
async function onRefOrFocus(tab: Tab, action: GatedAction['action'], ref: string | undefined): Promise<GatedAction> {
  if (ref) return { action, target: ref, element: await elementOf(tab, ref) };
  return { action, target: 'the focused element', element: await focusedElement(tab) };
}

/** Enter submits and Space clicks what has focus; a character or a deletion types into it; other keys move. */
async function keyActions(tab: Tab, key: string | undefined): Promise<GatedAction[]> {
  const chord = key ? parseChord(key) : undefined;
  if (!chord || 'error' in chord) return []; // the handler answers the bad key with validation_error
  const k = chord.key.key;
  if (k === 'Enter') return [await onRefOrFocus(tab, 'press_enter', undefined)];
  if (k === ' ' || k === 'Space') return [await onRefOrFocus(tab, 'click', undefined)];
  if (chord.key.text || k === 'Backspace' || k === 'Delete' || chord.modifiers.length) return [await onRefOrFocus(tab, 'fill', undefined)];
  return [];
}

/**
 * Each field of a many-field fill is gated. A ref that is gone is left to the handler, which reports it among
 * the fields that failed while the others are filled.
 */
async function fillMany(tab: Tab, fields: unknown): Promise<GatedAction[]> {
  if (!fields || typeof fields !== 'object') return [];
  const out: GatedAction[] = [];
  for (const ref of Object.keys(fields)) {
    const element = await elementOf(tab, ref).catch((e) => {
      if (e instanceof BrowserdError && e.code === 'stale_ref') return null;
      throw e;
    });
    if (element) out.push({ action: 'fill', target: ref, element });
  }
  return out;
}

async function elementOf(tab: Tab, ref: string): Promise<SensitiveElement> {
  const info = await tab.call('elementInfo', ref);
  if ('error' in info) throw new BrowserdError('stale_ref', info.message, { next: 'Take a new browser_snapshot and use a ref from it.' });
  return info;
}

async function focusedElement(tab: Tab): Promise<SensitiveElement | undefined> {
  const info = await tab.call('focusedInfo').catch(() => undefined);
  return info && !('error' in info) ? info : undefined;
}

function str(args: Args, name: string | undefined): string | undefined {
  const v = name ? args[name] : undefined;
  return typeof v === 'string' && v ? v : undefined;
}
