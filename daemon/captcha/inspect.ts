/**
 * browser_captcha_inspect's work: the container found in its frame, brought into view, photographed alone
 * (a clip of the tab's screenshot, in page coordinates) at a scale where neither side passes 1600 px, and a
 * capture registered that binds the image to that tab, frame, document and box. Nothing on the page is
 * clicked, typed or solved here.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { CdpConnection } from '../cdp/connection.js';
import type { Tab } from '../browser/tab.js';
import { remaskBeforeCapture } from '../secrets/masking.js';
import { captchaState, type Capture } from './captures.js';
import { FrameWalk, type FrameInfo } from './frames.js';
import { findContainer, type Box, type Found } from './geometry.js';

export const MAX_IMAGE_SIDE = 1600;

export interface Inspection { capture: Capture; png: string }

export async function inspectChallenge(owner: object, conn: CdpConnection, tab: Tab, user: string, frameIndex: number, selector: string): Promise<Inspection> {
  const walk = await FrameWalk.of(conn, tab);
  let kept: FrameInfo[] = [];
  try {
    const frame = walk.frame(frameIndex);
    if (!frame) {
      throw new BrowserdError('not_found', `${tab.id} has no frame ${frameIndex} (it has ${walk.frames.length}: 0-${walk.frames.length - 1})`, { next: 'List the frames with browser_captcha_frames and pass one of their indexes.' });
    }
    const found = await intoView(conn, tab, walk.frames, frame, selector);
    if (found.state !== 'shown') {
      throw new BrowserdError('not_found', `no ${found.state === 'hidden' ? 'visible ' : ''}element matches "${selector.slice(0, 200)}" in frame ${frameIndex}`, {
        next: 'Check the frame index (browser_captcha_frames) and the selector of the challenge container; it may not have appeared yet (browser_wait).',
      });
    }
    const view = await visibleBox(tab, found.box);
    if (!view) {
      throw new BrowserdError('action_failed', `the element "${selector.slice(0, 200)}" could not be brought into view`, { next: 'Scroll the page to the challenge (browser_scroll) and inspect again.' });
    }
    if (frame.session !== tab.sessionId) {
      // The capture watches this frame's own renderer for its navigations: its Page events must flow.
      await conn.send('Page.enable', {}, frame.session);
    }
    const { png, width, height } = await shoot(tab, view.clip);
    const chain = walk.chain(frame);
    const capture = captchaState(owner).add(conn, {
      user,
      tabId: tab.id,
      tabSession: tab.sessionId,
      frame,
      frames: chain,
      sessions: walk.sessionsOf(chain),
      selector,
      box: view.box,
      container: { width: found.box.width, height: found.box.height },
      offset: { x: view.box.x - found.box.x, y: view.box.y - found.box.y },
      image: { width, height, scaleX: width / view.box.width, scaleY: height / view.box.height },
    });
    kept = chain;
    return { capture, png };
  } finally {
    await walk.release(kept.map((f) => f.frameId));
  }
}

/**
 * The container, scrolled into the tab's viewport when it is not wholly there: first within its own frame's
 * document, then the main page, each synchronously in its own renderer and measured afterwards. (Chromium's
 * scrollIntoView from a frame of another site scrolls the page above it later, from the other renderer, so a
 * measurement right after it could be taken before that scroll, and the pointer would miss.)
 */
async function intoView(conn: CdpConnection, tab: Tab, frames: readonly FrameInfo[], frame: FrameInfo, selector: string): Promise<Found> {
  let found = await findContainer(conn, frames, frame, selector, false);
  if (found.state !== 'shown' || inside(found.box, await viewport(tab))) return found;
  found = await findContainer(conn, frames, frame, selector, true);
  if (found.state !== 'shown') return found;
  const view = await viewport(tab);
  if (inside(found.box, view)) return found;
  // Centred in the main page; a container larger than the viewport keeps its top-left edge in view.
  const by = (start: number, size: number, viewSize: number) => Math.round(size > viewSize ? start : start + size / 2 - viewSize / 2);
  await scrollMainBy(tab, by(found.box.x, found.box.width, view.width), by(found.box.y, found.box.height, view.height));
  return findContainer(conn, frames, frame, selector, false);
}

async function viewport(tab: Tab): Promise<{ width: number; height: number }> {
  const m = await tab.send('Page.getLayoutMetrics', {});
  return { width: m.cssLayoutViewport.clientWidth, height: m.cssLayoutViewport.clientHeight };
}

function inside(b: Box, v: { width: number; height: number }): boolean {
  return b.x >= 0 && b.y >= 0 && b.x + b.width <= v.width && b.y + b.height <= v.height;
}

/** Scrolls the main page, from a world of our own (the page's scripts cannot stand in for scrollBy there). */
async function scrollMainBy(tab: Tab, dx: number, dy: number) {
  if (!dx && !dy) return;
  const { frameTree } = await tab.send('Page.getFrameTree', {});
  const { executionContextId } = await tab.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'browserd-captcha', grantUniveralAccess: false });
  await tab.send('Runtime.evaluate', { expression: `window.scrollBy({ left: ${dx}, top: ${dy}, behavior: 'instant' })`, contextId: executionContextId });
  // The browser routes pointer input to a frame of another site by where the last drawn frames put it: wait
  // until the page has drawn twice since the scroll, so a click right after lands where the image shows.
  await tab.send('Runtime.evaluate', { expression: 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))', contextId: executionContextId, awaitPromise: true });
}

/**
 * The part of the box inside the viewport (what a person sees, and all the pointer can reach), and the same
 * rectangle in page coordinates for the screenshot's clip (the viewport's scroll added).
 */
async function visibleBox(tab: Tab, box: Box): Promise<{ box: Box; clip: Box } | undefined> {
  const m = await tab.send('Page.getLayoutMetrics', {});
  const vw = m.cssLayoutViewport.clientWidth;
  const vh = m.cssLayoutViewport.clientHeight;
  const x0 = Math.max(0, box.x);
  const y0 = Math.max(0, box.y);
  const x1 = Math.min(vw, box.x + box.width);
  const y1 = Math.min(vh, box.y + box.height);
  if (x1 - x0 < 1 || y1 - y0 < 1) return undefined;
  const seen = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  return { box: seen, clip: { ...seen, x: x0 + m.cssVisualViewport.pageX, y: y0 + m.cssVisualViewport.pageY } };
}

/**
 * A PNG of the clip, no side over MAX_IMAGE_SIDE. The device scale factor multiplies what Chromium draws, so
 * the size is read from the image itself and, when a side is still too long, taken again smaller.
 */
async function shoot(tab: Tab, clip: Box): Promise<{ png: string; width: number; height: number }> {
  let scale = Math.min(1, MAX_IMAGE_SIDE / clip.width, MAX_IMAGE_SIDE / clip.height);
  await remaskBeforeCapture(tab);
  for (let attempt = 0; attempt < 3; attempt++) {
    const shot = await tab.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale }, captureBeyondViewport: false });
    const { width, height } = pngSize(shot.data);
    const longest = Math.max(width, height);
    if (longest <= MAX_IMAGE_SIDE) return { png: shot.data, width, height };
    scale *= (MAX_IMAGE_SIDE - 1) / longest;
  }
  throw new BrowserdError('action_failed', 'the challenge could not be captured small enough', { next: 'Inspect a smaller container (a narrower selector).' });
}

/** Width and height from a PNG's IHDR chunk (bytes 16-23), without decoding the image. */
export function pngSize(base64: string): { width: number; height: number } {
  const head = Buffer.from(base64.slice(0, 44), 'base64');
  if (head.length < 24 || head.toString('ascii', 12, 16) !== 'IHDR') throw new BrowserdError('internal_error', 'the screenshot is not a PNG', { next: 'Try again.' });
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}
