/**
 * The policy gate every page action passes before it runs, in one place:
 *   1. the user's host policy: a read-only site refuses writes and sensitive actions (site_read_only), a
 *      blocked site refuses everything;
 *   2. the sensitive-action classifier (one rule table): refused in a read tab;
 *   3. approvals: when the user has them on, a sensitive action is not done and the result carries
 *      needsApproval.
 * Returns false when the action must not run now (needsApproval has been written to the response).
 */
import type { ToolContext } from '../tools/context.js';
import type { Tab } from '../browser/tab.js';
import type { ResponseBuilder } from '../tools/response.js';
import { BrowserdError } from '../../protocol/errors.js';
import { classifySensitive, type SensitiveAction, type SensitiveVerdict } from './sensitive.js';
import { evaluateHostPolicy } from './host-policy.js';

export interface GatedAction {
  action: 'click' | 'press_enter' | 'fill' | 'submit' | 'evaluate' | 'drag' | 'allow_confirm';
  ref?: string;
  point?: { x: number; y: number };
}

/** Actions that change something by their nature, whatever the element: refused on a read-only site. */
const ALWAYS_WRITES = new Set<GatedAction['action']>(['evaluate', 'allow_confirm']);

async function classify(tab: Tab, a: GatedAction): Promise<SensitiveVerdict> {
  if (a.action === 'evaluate') return classifySensitive({ action: 'evaluate', pageUrl: tab.url });
  if (a.action === 'allow_confirm') return { sensitive: false, classes: [], reasons: [] };
  let element;
  if (a.ref) {
    element = await tab.call('elementInfo', a.ref);
  } else if (a.action === 'press_enter') {
    // Enter goes to the focused element: classify that one (its form, its page).
    element = await tab.call('focusedInfo').catch(() => undefined);
  }
  const headings = element?.headings;
  return classifySensitive({ action: a.action as SensitiveAction, element, pageUrl: tab.url, headings });
}

export async function gateAction(ctx: ToolContext, tab: Tab, a: GatedAction, out: ResponseBuilder): Promise<boolean> {
  const access = evaluateHostPolicy(ctx.env.policies.rules(ctx.user.id), tab.url);
  if (access === 'blocked') {
    throw new BrowserdError('blocked', `the user's policy blocks ${hostOf(tab.url)}`, { next: 'Report this to the user; do not try another way.' });
  }
  const verdict = await classify(tab, a);
  if (access === 'read_only' && (verdict.sensitive || ALWAYS_WRITES.has(a.action) || isSubmitLike(a, verdict))) {
    throw new BrowserdError('site_read_only', `${hostOf(tab.url)} is read-only by the user's policy: this ${a.action.replace('_', ' ')} is refused${verdict.classes.length ? ` (${verdict.classes.join(', ')})` : ''}`, {
      next: 'Report this to the user. Do not try another way (another tab, a script, a different element).',
      details: { classes: verdict.classes, reasons: verdict.reasons },
    });
  }
  if (!verdict.sensitive) return true;
  if (tab.mode === 'read' && a.action !== 'evaluate') {
    throw new BrowserdError('refused', `this ${a.action.replace('_', ' ')} is sensitive (${verdict.classes.join(', ')}) and ${tab.id} is a read tab`, {
      next: 'Tell the user what you wanted to do; an act tab (browser_open{mode:"act"}) is needed for it.',
      details: { classes: verdict.classes, reasons: verdict.reasons },
    });
  }
  if (ctx.user.approvals) {
    out.needsApproval({ action: a.action, classes: verdict.classes, reasons: verdict.reasons, tab: tab.id, target: a.ref });
    return false;
  }
  return true;
}

/** On a read-only site, Enter and clicks on submit buttons are writes even when nothing looks sensitive. */
function isSubmitLike(a: GatedAction, v: SensitiveVerdict): boolean {
  return a.action === 'press_enter' || a.action === 'submit' || (a.action === 'fill' && v.sensitive);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || url;
  } catch {
    return url;
  }
}
