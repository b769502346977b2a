/**
 * One CDP session's identity state (a tab's own session, or an out-of-process frame's): which plan its next
 * documents get, or none. Switching sends the overrides and swaps the page script. Before a navigation of ours
 * or a frame that has not run yet, the switch is awaited. While a document request is paused, Chromium holds
 * these commands until that navigation commits (awaiting them there would stall it for as long as we waited), so
 * they are sent without waiting: the page script is registered at once and reaches the new document, and the
 * paused request's own headers are rewritten to match (plan.ts).
 */
import type { CdpConnection } from '../cdp/connection.js';
import type { IdentityPlan, NativeAgent } from './plan.js';

/** Long enough for a held command to be answered after a slow navigation commits: its answer carries the script id. */
const HELD_COMMAND_MS = 120_000;

export class SessionIdentity {
  /** The key of the plan the session shows; undefined while it shows the browser's own values. */
  private applied?: string;
  /** The id of the page script in place, once Chromium answers (a removal waits for it). */
  private scriptId?: Promise<string | undefined>;

  constructor(private conn: CdpConnection, readonly session: string, private native: NativeAgent) {}

  /** The key of the plan the session shows (undefined: native). */
  get shows(): string | undefined {
    return this.applied;
  }

  /** Makes the session's next documents show `plan` (undefined: native). Answers whether anything changed. */
  async set(plan: IdentityPlan | undefined, wait: boolean): Promise<boolean> {
    if (plan?.key === this.applied) return false;
    const c = this.conn;
    const s = this.session;
    const steps: Promise<unknown>[] = [];
    const old = this.scriptId;
    this.scriptId = undefined;
    if (old) steps.push(old.then((identifier) => (identifier ? c.sendMayFail('Page.removeScriptToEvaluateOnNewDocument', { identifier }, s, HELD_COMMAND_MS) : undefined)));
    if (plan) {
      steps.push(c.sendMayFail('Emulation.setUserAgentOverride', plan.userAgent, s, HELD_COMMAND_MS));
      steps.push(c.sendMayFail('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: plan.hardwareConcurrency }, s, HELD_COMMAND_MS));
      // The page's own world (no worldName), so the page's scripts read these values.
      const added = c.sendMayFail('Page.addScriptToEvaluateOnNewDocument', { source: plan.script, runImmediately: true }, s, HELD_COMMAND_MS).then((r) => r?.identifier);
      this.scriptId = added;
      steps.push(added);
    } else {
      // An empty user agent ends the override (headers and client hints too). Chromium has no way to end the
      // concurrency override, so it goes back to the value the browser reports by itself.
      steps.push(c.sendMayFail('Emulation.setUserAgentOverride', { userAgent: '' }, s, HELD_COMMAND_MS));
      steps.push(c.sendMayFail('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: this.native.hardwareConcurrency }, s, HELD_COMMAND_MS));
    }
    this.applied = plan?.key;
    if (wait) await Promise.all(steps);
    return true;
  }
}
