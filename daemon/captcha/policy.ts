/**
 * The policy gate for an act on a challenge. browser_captcha_act cannot declare its points as `touches` for the
 * pipeline's gate step: its x and y are pixels of a captured image, not viewport points, and only the capture
 * can map them, so the step would look up (and judge) whatever happens to lie at those numbers on the page.
 * This asks the same gate (daemon/policy/gate.ts) with what is really known: an action at a point whose
 * element is not judged (a challenge's cells and tiles are page-drawn pictures, not labelled controls). So a
 * blocked host refuses it, a read-only site refuses it (site_read_only), and approvals apply as anywhere.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { gateAction, type ApprovalNeeded, type GatedActionKind } from '../policy/gate.js';
import type { HostRule } from '../policy/host-policy.js';

export type ChallengeAction = 'click' | 'drag' | 'type';

const GATED: Record<ChallengeAction, GatedActionKind> = { click: 'click', drag: 'drag', type: 'fill' };

/**
 * Gates the act for the tab's page and for the challenge frame's own site: the challenge's answer goes to the
 * frame's site, the page's to the page's. A refusal throws; an approval to ask for is returned.
 */
export function gateChallengeAct(
  page: { url: string; tabId: string; rules: readonly HostRule[]; approvals: boolean },
  frameUrl: string,
  action: ChallengeAction,
  capture: string,
): ApprovalNeeded | undefined {
  let approval: ApprovalNeeded | undefined;
  const urls = frameUrl && frameUrl !== page.url && /^https?:/i.test(frameUrl) ? [page.url, frameUrl] : [page.url];
  for (const url of urls) {
    try {
      // Read tabs are refused before this (browser_captcha_act needs an act tab whatever the element).
      approval = gateAction({ url, tabId: page.tabId, tabMode: 'act', rules: page.rules, approvals: page.approvals }, { action: GATED[action], target: `a point of ${capture}`, atPoint: true }) ?? approval;
    } catch (e) {
      // The gate's own advice speaks of refs; on a challenge there is no ref to use instead.
      if (e instanceof BrowserdError && e.code === 'site_read_only') {
        throw new BrowserdError('site_read_only', e.message, { next: "Report this to the user: their policy makes this site read-only, so a challenge on it is not answered. Do not try another way.", details: e.details });
      }
      throw e;
    }
  }
  return approval;
}
