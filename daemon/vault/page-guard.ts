/**
 * Where a secret may be put. Filling a vault value is always a write of the user's secret, so beyond what the
 * policy gate judges for an ordinary fill: never in a read tab, never on a read-only or blocked site, and only
 * on a page (and in the frame holding the field) whose host belongs to the entry. Every check reads the tab's
 * address at the moment of filling, so a redirect after the agent looked is caught.
 */
import type { Tab } from '../browser/tab.js';
import type { ToolContext } from '../call/context.js';
import type { VaultEntryInfo } from '../../storage/vault.js';
import { BrowserdError } from '../../protocol/errors.js';
import { evaluateHostPolicy } from '../policy/host-policy.js';
import { gateAction, type ApprovalNeeded, type GatedActionKind } from '../policy/gate.js';
import { entryHosts, hostBelongs } from '../secrets/site-match.js';

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** Throws unless the tab (and the ref's frame, when given) may receive the entry's values now. */
export async function assertSecretTarget(ctx: ToolContext, tab: Tab, info: VaultEntryInfo, ref?: string): Promise<void> {
  if (tab.mode === 'read') {
    throw new BrowserdError('refused', `${tab.id} is a read tab: vault values are filled only in act tabs`, { next: 'Open the page in an act tab (browser_open{url, mode:"act"}) and try there.' });
  }
  const access = evaluateHostPolicy(ctx.env.policies.rules(ctx.user.id), tab.url);
  if (access === 'blocked') throw new BrowserdError('blocked', `the user's policy blocks ${hostOf(tab.url)}`, { next: 'Report this to the user; do not try another way.' });
  if (access === 'read_only') {
    throw new BrowserdError('site_read_only', `${hostOf(tab.url)} is read-only by the user's policy: no vault value is filled there`, { next: 'Report this to the user. Do not try another way.' });
  }
  const wrong = (host: string, where: string) =>
    new BrowserdError('refused', `${where} is on ${host || 'a page without a host'}, which is not a host of vault entry ${info.name} (${entryHosts(info).join(', ') || 'none'})`, {
      next: 'Only pages of the entry\'s own site get its values. Check the address: a look-alike or a redirect is not the site. Report this to the user if it looks wrong.',
    });
  const tabHost = hostOf(tab.url);
  if (!hostBelongs(tabHost, info)) throw wrong(tabHost, `tab ${tab.id}`);
  if (ref) {
    const target = await tab.call('secretTarget', ref);
    if (!hostBelongs(target.host, info)) throw wrong(target.host, `the frame holding ${ref}`);
  }
}

/** Thrown to stop a multi-step tool when the user's approval is needed first; the tool reports it. */
export class ApprovalStop extends Error {
  constructor(readonly approval: ApprovalNeeded) {
    super('needs approval');
  }
}

/**
 * Puts an action on an element the tool found itself through the same policy gate the pipeline uses for
 * declared touches (a found field has no ref argument for the pipeline to read).
 */
export async function gateFound(ctx: ToolContext, tab: Tab, action: GatedActionKind, ref: string): Promise<void> {
  const element = await tab.call('elementInfo', ref);
  const approval = gateAction(
    { url: tab.url, tabId: tab.id, tabMode: tab.mode, rules: ctx.env.policies.rules(ctx.user.id), approvals: !!ctx.user.approvals },
    { action, target: ref, element },
  );
  if (approval) throw new ApprovalStop(approval);
}
