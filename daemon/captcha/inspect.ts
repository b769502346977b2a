/**
 * browser_captcha_inspect's work: the container found in its frame, brought into view, photographed alone
 * (a clip of the tab's screenshot, in page coordinates) at a scale where neither side passes 1600 px, and a
 * capture registered that binds the image to that tab, frame, document and box. Nothing on the page is
 * clicked, typed or solved here.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { CdpConnection } from '../cdp/connection.js';
import type { Tab } from '../browser/tab.js';
import { remaskBeforeCapture } from '../vault/masking.js';
import { captchaState, type Capture } from './captures.js';
import { FrameWalk, type FrameInfo } from './frames.js';
import { findContainer, type Box } from './geometry.js';

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
    const found = await findContainer(conn, walk.frames, frame, selector, true);
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
