/**
 * The policy gate every page action passes before it runs, as one decision over plain inputs:
 *   1. the user's host policy: a read-only site refuses writes and sensitive actions (site_read_only), a
 *      blocked site refuses everything;
 *   2. the sensitive-action classifier (one rule table): refused in a read tab;
 *   3. approvals: when the user has them on, a sensitive action is not done and the caller reports
 *      needsApproval instead.
 * It knows nothing of tools or tabs: the call pipeline (tools/dispatch) gathers the page facts and asks here.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { classifySensitive, type SensitiveElement, type SensitiveVerdict } from './sensitive.js';
import { evaluateHostPolicy, type HostRule } from './host-policy.js';

export type GatedActionKind = 'click' | 'press_enter' | 'fill' | 'submit' | 'evaluate' | 'drag' | 'upload' | 'allow_confirm';

/** One thing a call is about to do to a page, with the element it lands on when one is known. */
export interface GatedAction {
  action: GatedActionKind;
  /** The ref (or a short description such as "the focused element") the action lands on, for messages. */
  target?: string;
  element?: SensitiveElement;
  /** Aimed at a viewport point, not an element: the classifier cannot tell what is there. */
  atPoint?: boolean;
}

/** The page the actions land on and the user's settings that apply to it. */
export interface GatedPage {
  url: string;
  tabId: string;
  tabMode: 'read' | 'act';
  rules: readonly HostRule[];
  approvals: boolean;
}

export interface ApprovalNeeded {
  action: string;
  classes: string[];
  reasons: string[];
  tab: string;
  target?: string;
}

/**
 * Whether what an action lands on can change the decision for this page: on a read-only site, in a read tab
 * or with approvals on it can; in an act tab elsewhere every action that is not blocked runs whatever the
 * element is, so the caller need not ask the page what it is.
 */
export function elementMatters(page: GatedPage): boolean {
  return page.tabMode === 'read' || page.approvals || evaluateHostPolicy(page.rules, page.url) === 'read_only';
}

/** Actions that change something by their nature, whatever the element: refused on a read-only site. */
const ALWAYS_WRITES = new Set<GatedActionKind>(['evaluate', 'allow_confirm', 'upload']);

function classify(page: GatedPage, a: GatedAction): SensitiveVerdict {
  switch (a.action) {
    case 'evaluate':
      return classifySensitive({ action: 'evaluate', pageUrl: page.url });
    case 'allow_confirm':
    case 'upload':
      return { sensitive: false, classes: [], reasons: [] };
    default:
      return classifySensitive({ action: a.action, element: a.element, pageUrl: page.url, headings: a.element?.headings });
  }
}

/**
 * Throws the refusal (blocked, site_read_only, refused) when the action must never run here; returns what
 * to ask the user when it needs approval first; returns undefined when it may run now.
 */
export function gateAction(page: GatedPage, a: GatedAction): ApprovalNeeded | undefined {
  const access = evaluateHostPolicy(page.rules, page.url);
  if (access === 'blocked') {
    throw new BrowserdError('blocked', `the user's policy blocks ${hostOf(page.url)}`, { next: 'Report this to the user; do not try another way.' });
  }
  const verdict = classify(page, a);
  const what = a.action.replace('_', ' ');
  if (access === 'read_only' && a.atPoint && !a.element) {
    // What lies under a point is not known here, so it cannot be judged harmless: only refs are.
    throw new BrowserdError('site_read_only', `${hostOf(page.url)} is read-only by the user's policy: a ${what} at a point cannot be checked there, so it is refused`, {
      next: 'Use a ref from browser_snapshot, so the element can be checked. If that is refused too, report it to the user.',
    });
  }
  if (access === 'read_only' && (verdict.sensitive || ALWAYS_WRITES.has(a.action) || isSubmitLike(a))) {
    throw new BrowserdError('site_read_only', `${hostOf(page.url)} is read-only by the user's policy: this ${what} is refused${verdict.classes.length ? ` (${verdict.classes.join(', ')})` : ''}`, {
      next: 'Report this to the user. Do not try another way (another tab, a script, a different element).',
      details: { classes: verdict.classes, reasons: verdict.reasons },
    });
  }
  if (!verdict.sensitive) return undefined;
  if (page.tabMode === 'read' && a.action !== 'evaluate') {
    throw new BrowserdError('refused', `this ${what} is sensitive (${verdict.classes.join(', ')}) and ${page.tabId} is a read tab`, {
      next: 'Tell the user what you wanted to do; an act tab (browser_open{mode:"act"}) is needed for it.',
      details: { classes: verdict.classes, reasons: verdict.reasons },
    });
  }
  if (page.approvals) return { action: a.action, classes: verdict.classes, reasons: verdict.reasons, tab: page.tabId, target: a.target };
  return undefined;
}

/** On a read-only site, Enter and form submits are writes even when nothing looks sensitive. */
function isSubmitLike(a: GatedAction): boolean {
  return a.action === 'press_enter' || a.action === 'submit';
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || url;
  } catch {
    return url;
  }
}
