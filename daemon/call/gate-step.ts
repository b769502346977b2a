/**
 * The pipeline's policy step. A tool declares how it touches the page (define.ts, `touches`); this step reads
 * the call's arguments through that declaration, finds the elements each action lands on, and puts every one
 * through the policy gate before the handler runs. Refusals throw; an action that needs approval first is
 * returned, and then the handler does not run at all.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { Tab } from '../browser/tab.js';
import { parseChord } from '../browser/keys.js';
import { elementMatters, gateAction, type ApprovalNeeded, type GatedAction, type GatedPage } from '../policy/gate.js';
import type { SensitiveElement } from '../policy/sensitive.js';
import type { ToolContext } from './context.js';
import type { Touch } from './define.js';

type Args = Record<string, unknown>;

/** How the step learns what an action lands on; a blind looker answers "unknown" without asking the page. */
interface Looker {
  element(ref: string): Promise<SensitiveElement | undefined>;
  focused(): Promise<SensitiveElement | undefined>;
  at(x: number, y: number): Promise<SensitiveElement | undefined>;
}

export async function gateTouches(ctx: ToolContext, tab: Tab, touches: readonly Touch[], args: Args): Promise<ApprovalNeeded | undefined> {
  const page: GatedPage = { url: tab.url, tabId: tab.id, tabMode: tab.mode, rules: ctx.env.policies.rules(ctx.user.id), approvals: !!ctx.user.approvals };
  // Where no verdict can change the decision (an act tab, no read-only policy, approvals off) the page is not
  // asked what the elements are: that lookup is a round trip on every click for nothing.
  const looks = elementMatters(page);
  const look: Looker = looks
    ? { element: (ref) => elementOf(tab, ref), focused: () => focusedElement(tab), at: (x, y) => elementAt(tab, x, y) }
    : { element: async () => undefined, focused: async () => undefined, at: async () => undefined };
  let approval: ApprovalNeeded | undefined;
  // Every action is gated even after one needs approval: a refusal outranks a question to the user.
  for (const touch of touches) {
    if (looks && touch.kind === 'click') {
      // The click will need the element's point: ask in the same round trip as the element lookup.
      const ref = str(args, touch.ref);
      if (ref) ctx.askPointAhead(tab, ref);
    }
    for (const action of await actionsOf(look, touch, args)) approval = gateAction(page, action) ?? approval;
  }
  return approval;
}

async function actionsOf(look: Looker, touch: Touch, args: Args): Promise<GatedAction[]> {
  switch (touch.kind) {
    case 'click':
      return [await onTarget(look, 'click', touch.ref, touch.point, args)];
    case 'drop':
      return [await onTarget(look, 'drag', touch.ref, touch.point, args)];
    case 'fill':
      return [await onRefOrFocus(look, 'fill', str(args, touch.ref))];
    case 'file':
      return [await onRefOrFocus(look, 'upload', str(args, touch.ref))];
    case 'submit':
      return args[touch.when] === true ? [await onRefOrFocus(look, 'press_enter', str(args, touch.ref))] : [];
    case 'key':
      return keyActions(look, str(args, touch.key));
    case 'fill_many':
      return fillMany(look, args[touch.fields]);
    case 'script':
      return [{ action: 'evaluate' }];
    case 'confirm':
      return [{ action: 'allow_confirm' }];
  }
}

/** An action on the element in a ref argument, or at a point (where no element is known to the gate). */
async function onTarget(look: Looker, action: GatedAction['action'], refArg: string | undefined, point: readonly [string, string] | undefined, args: Args): Promise<GatedAction> {
  const ref = str(args, refArg);
  if (ref) return { action, target: ref, element: await look.element(ref) };
  const x = point && args[point[0]];
  const y = point && args[point[1]];
  if (typeof x === 'number' && typeof y === 'number') return { action, target: `(${x}, ${y})`, atPoint: true, element: await look.at(x, y) };
  return { action };
}

/** An action on the element in a ref argument, or on the element that has focus (where keys and text go). */
async function onRefOrFocus(look: Looker, action: GatedAction['action'], ref: string | undefined): Promise<GatedAction> {
  if (ref) return { action, target: ref, element: await look.element(ref) };
  return { action, target: 'the focused element', element: await look.focused() };
}

/**
 * Enter submits and Space clicks what has focus; a character, a deletion or a command chord (Control+V pastes)
 * types into it; other keys (Tab, arrows, Escape, with or without Shift) only move.
 */
async function keyActions(look: Looker, key: string | undefined): Promise<GatedAction[]> {
  const chord = key ? parseChord(key) : undefined;
  if (!chord || 'error' in chord) return []; // the handler answers the bad key with validation_error
  const k = chord.key.key;
  if (k === 'Enter') return [await onRefOrFocus(look, 'press_enter', undefined)];
  if (k === ' ' || k === 'Space') return [await onRefOrFocus(look, 'click', undefined)];
  const command = chord.modifiers.some((m) => m === 'Control' || m === 'Meta' || m === 'Alt');
  if (chord.key.text || k === 'Backspace' || k === 'Delete' || command) return [await onRefOrFocus(look, 'fill', undefined)];
  return [];
}

/**
 * Each field of a many-field fill is gated. A ref that is gone is left to the handler, which reports it among
 * the fields that failed while the others are filled.
 */
async function fillMany(look: Looker, fields: unknown): Promise<GatedAction[]> {
  if (!fields || typeof fields !== 'object') return [];
  const out: GatedAction[] = [];
  for (const ref of Object.keys(fields)) {
    const element = await look.element(ref).then(
      (el) => ({ el }),
      (e) => {
        if (e instanceof BrowserdError && e.code === 'stale_ref') return null;
        throw e;
      },
    );
    if (element) out.push({ action: 'fill', target: ref, element: element.el });
  }
  return out;
}

/** Tab.call turns an unknown or stale ref into a stale_ref error itself. */
function elementOf(tab: Tab, ref: string): Promise<SensitiveElement> {
  return tab.call('elementInfo', ref);
}

/** What a pointer at (x, y) hits; unknown (a frame from another site, empty space) is undefined. */
function elementAt(tab: Tab, x: number, y: number): Promise<SensitiveElement | undefined> {
  return tab.call('elementInfoAt', x, y).catch((e) => {
    if (e instanceof BrowserdError && e.code === 'not_found') return undefined;
    throw e;
  });
}

/** Nothing focused is no element to classify, not an error: Enter then goes to the page. */
function focusedElement(tab: Tab): Promise<SensitiveElement | undefined> {
  return tab.call('focusedInfo').catch(() => undefined);
}

function str(args: Args, name: string | undefined): string | undefined {
  const v = name ? args[name] : undefined;
  return typeof v === 'string' && v ? v : undefined;
}
