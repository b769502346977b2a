/**
 * Pointer input into a frame of another site is routed by the browser process, which learns where that frame
 * sits from the frames the page has drawn, some time after a scroll. Until it knows, a click at the right
 * viewport point goes to the page under the frame instead. So before pressing anything we move the pointer to
 * the point and ask the frame whether the move arrived, at the coordinates expected; if not, we wait for the
 * page to draw and ask again. A move is harmless (hover at most); a press in the wrong document is not.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { CdpConnection } from '../cdp/connection.js';
import { mouseMove } from '../browser/input.js';
import type { Tab } from '../browser/tab.js';
import type { FrameInfo } from './frames.js';
import { frameLocal, worldOf } from './geometry.js';

/** Moves tried; between two the main page draws twice (about 35 ms each time at 60 frames a second). */
const ATTEMPTS = 60;
const KEY = '__browserdCaptchaProbe';

export async function ensureRouted(conn: CdpConnection, tab: Tab, frames: readonly FrameInfo[], frame: FrameInfo, point: { x: number; y: number }): Promise<void> {
  // The tab's own renderer hit-tests its own frames itself, at once: only other renderers' frames can lag.
  if (frame.session === tab.sessionId) return;
  const expected = await frameLocal(conn, frames, frame, point);
  const { frameTree } = await tab.send('Page.getFrameTree', {});
  const mainWorld = await tab.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'browserd-captcha', grantUniveralAccess: false });
  for (let i = 0; i < ATTEMPTS; i++) {
    const contextId = await worldOf(conn, frame);
    await conn.send('Runtime.evaluate', { expression: `globalThis.${KEY} = null; addEventListener('mousemove', (e) => { globalThis.${KEY} = [e.clientX, e.clientY]; }, { capture: true, once: true });`, contextId }, frame.session);
    // Alternate by a pixel: a move to where the pointer already is may not be dispatched at all.
    await mouseMove(tab, point.x + (i % 2 ? 0.5 : 0), point.y);
    const got = await conn.send('Runtime.evaluate', { expression: `new Promise((r) => requestAnimationFrame(() => r(globalThis.${KEY})))`, contextId, awaitPromise: true, returnByValue: true }, frame.session);
    const at = got.result.value as [number, number] | null;
    if (at && Math.abs(at[0] - expected.x) <= 2 && Math.abs(at[1] - expected.y) <= 2) return;
    await tab.send('Runtime.evaluate', { expression: 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))', contextId: mainWorld.executionContextId, awaitPromise: true });
  }
  throw new BrowserdError('action_failed', 'pointer input does not reach the challenge frame at the captured point yet; nothing was pressed', { next: 'Inspect again (browser_captcha_inspect) and act on the new capture.' });
}
