/**
 * One check's look at the page: a hidden read tab of the user's default profile (so the user's cookies go
 * along, and every write the page tries is aborted inside the browser), a fixed viewport so pictures and
 * layout-dependent text are comparable from one check to the next, then the page's visible text, its
 * snapshot or a PNG, of the whole page or of the element `selector` names.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { BrowserPool } from '../browser/pool.js';
import type { UserStore } from '../../storage/users.js';
import type { Webhooks } from '../../protocol/webhook-events.js';
import type { Tab } from '../browser/tab.js';
import type { Baseline, MonitorSpec } from '../../storage/monitors.js';
import { BrowserdError } from '../../protocol/errors.js';
import { screenshot } from '../browser/capture.js';

export const CHECK_VIEWPORT = { width: 1280, height: 800, deviceScaleFactor: 1 };
const LOAD_TIMEOUT_MS = 30_000;

/** What a check saw: text (text, snapshot) or a PNG (screenshot), the same shapes a baseline keeps. */
export type Capture = Baseline;

/** What monitors need of the daemon, named here so the feature depends on these services and nothing else. */
export interface MonitorDeps {
  cfg: Pick<Config, 'quotas'>;
  users: Pick<UserStore, 'isActive'>;
  pool: BrowserPool;
  webhooks: Pick<Webhooks, 'emit'>;
  log: Logger;
}

export type CaptureFn = (env: MonitorDeps, user: string, spec: MonitorSpec) => Promise<Capture>;

export const captureInBrowser: CaptureFn = async (env, user, spec) => {
  // The idle sweeper leaves the browser alone while a check has a tab in it.
  const release = env.pool.hold(user);
  let tab: Tab | undefined;
  try {
    const inst = await env.pool.get(user);
    tab = await inst.scratchTab({ drawn: spec.compare === 'screenshot' });
    await tab.applyViewport(CHECK_VIEWPORT);
    await tab.navigate(spec.url, LOAD_TIMEOUT_MS);
    const status = tab.lastDocument?.status ?? 200;
    if (status >= 400) throw new BrowserdError('navigation_failed', `${spec.url} answered HTTP ${status}`, { next: 'The baseline is kept; the next check tries again.' });
    return await look(tab, spec);
  } finally {
    await tab?.close().catch(() => undefined);
    release();
  }
};

async function look(tab: Tab, spec: MonitorSpec): Promise<Capture> {
  const ref = spec.selector ? await refOf(tab, spec.selector) : undefined;
  if (spec.compare === 'text') {
    return { kind: 'text', text: (await tab.call('readText', ref ? { ref } : {})).text };
  }
  if (spec.compare === 'snapshot') {
    // The snapshot walks the whole body: with a selector, the element is made the body's only content first.
    // This tab is ours alone and is thrown away after the check, so changing its document costs nothing.
    if (spec.selector) await keepOnly(tab, spec.selector);
    return { kind: 'text', text: (await tab.call('snapshot', {})).text };
  }
  const clip = ref ? await tab.call('rectFor', ref) : undefined;
  if (clip && (clip.width < 1 || clip.height < 1)) throw new BrowserdError('action_failed', `the element ${spec.selector} has no size to picture`, { next: 'Pick a selector of a visible element.' });
  const data = await screenshot(tab, { format: 'png', ...(clip ? { clip: { x: clip.x, y: clip.y, width: Math.ceil(clip.width), height: Math.ceil(clip.height) } } : {}) });
  return { kind: 'png', png: Buffer.from(data, 'base64') };
}

async function refOf(tab: Tab, selector: string): Promise<string> {
  const r = await tab.call('query', { css: selector, limit: 1 });
  const ref = r.matches[0]?.ref;
  if (!ref) throw new BrowserdError('action_failed', `the selector ${selector} matched nothing on the page`, { next: 'The baseline is kept; check the selector against the page (browser_query).' });
  return ref;
}

async function keepOnly(tab: Tab, selector: string): Promise<void> {
  const r = await tab.send('Runtime.evaluate', {
    expression: `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el || !document.body) return false; document.body.replaceChildren(el); return true; })()`,
    returnByValue: true,
  });
  if (r.result?.value !== true) throw new BrowserdError('action_failed', `the selector ${selector} matched nothing on the page`, { next: 'The baseline is kept; check the selector against the page (browser_query).' });
}
