/**
 * browser_captcha_act's work once the capture and the policy allowed it: the image's points mapped back onto
 * the container where it is now, sent as real pointer input (or text inserted into an empty field, never Enter,
 * never a submit), and then a second look: a container that still shows makes the act a miss. Nothing here
 * says the challenge was passed; only the page can.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { CdpConnection } from '../cdp/connection.js';
import { afterAction, type Tab } from '../browser/tab.js';
import { mouseClick } from '../browser/input.js';
import { drag } from '../browser/gestures.js';
import { captchaState, MISSES_BEFORE_HANDOFF, type Capture } from './captures.js';
import { fieldsFor, findContainer } from './geometry.js';
import { ensureRouted } from './routing.js';
import type { ChallengeAction } from './policy.js';

export interface ActArgs { action: ChallengeAction; x: number; y: number; endX?: number; endY?: number; text?: string }

export interface ActResult {
  /** Whether the container still shows after the act. */
  stillShows: boolean;
  misses: number;
  /** The viewport points the input went to. */
  at: { x: number; y: number };
  to?: { x: number; y: number };
}

/** Pointer moves between press and release of a drag: enough for sliders that follow the pointer. */
const DRAG_STEPS = 16;

/** The image point must lie on the image: 0 <= x < width, 0 <= y < height. */
export function assertInImage(c: Capture, x: number, y: number, which: string) {
  if (!(x >= 0 && y >= 0 && x < c.image.width && y < c.image.height)) {
    throw new BrowserdError('validation_error', `the ${which} point (${x}, ${y}) is outside the captured image (${c.image.width}x${c.image.height} px)`, {
      next: 'Give x and y in pixels of the image browser_captcha_inspect returned: 0 <= x < width, 0 <= y < height.',
    });
  }
}

/** The main frame's document now: misses count per page, and a new document starts again. */
export async function pageKey(tab: Tab): Promise<string> {
  const { frameTree } = await tab.send('Page.getFrameTree', {});
  return frameTree.frame.loaderId;
}

export async function actOnChallenge(owner: object, conn: CdpConnection, tab: Tab, c: Capture, args: ActArgs, page: string): Promise<ActResult> {
  const state = captchaState(owner);
  let release: (() => void) | undefined;
  try {
    return await act(state, conn, tab, c, args, page, () => (release = state.consume(c.id)));
  } finally {
    release?.();
  }
}

async function act(state: ReturnType<typeof captchaState>, conn: CdpConnection, tab: Tab, c: Capture, args: ActArgs, page: string, consume: () => void): Promise<ActResult> {
  const now = await findContainer(conn, c.frames, c.frame, c.selector, false).catch(() => ({ state: 'missing' as const }));
  if (now.state !== 'shown') {
    consume();
    throw new BrowserdError('not_found', `the challenge container "${c.selector.slice(0, 200)}" no longer shows in its frame; nothing was sent`, { next: 'Look at the page (browser_snapshot or browser_screenshot); inspect again if a new challenge shows.' });
  }
  if (Math.abs(now.box.width - c.container.width) > 1 || Math.abs(now.box.height - c.container.height) > 1) {
    consume();
    throw new BrowserdError('action_failed', 'the challenge container changed size since the capture, so the image no longer matches it; nothing was sent', { next: 'Inspect again (browser_captcha_inspect) and act on the new image.' });
  }
  // The image's pixel -> CSS px of the container as it sits now (the page may have scrolled since).
  const map = (ix: number, iy: number) => ({ x: now.box.x + c.offset.x + ix / c.image.scaleX, y: now.box.y + c.offset.y + iy / c.image.scaleY });
  const at = map(args.x, args.y);
  const to = args.action === 'drag' ? map(args.endX!, args.endY!) : undefined;
  const m = await tab.send('Page.getLayoutMetrics', {});
  for (const p of [at, ...(to ? [to] : [])]) {
    if (p.x < 0 || p.y < 0 || p.x >= m.cssLayoutViewport.clientWidth || p.y >= m.cssLayoutViewport.clientHeight) {
      consume();
      throw new BrowserdError('action_failed', 'the challenge has moved out of view since the capture; nothing was sent', { next: 'Inspect again (browser_captcha_inspect): it brings the challenge into view.' });
    }
  }
  let typeInto: 'point' | 'focused' | undefined;
  if (args.action === 'type') {
    const f = await fieldsFor(conn, c.frames, c.frame, c.selector, at);
    typeInto = f.kind === 'empty_text' ? 'point' : f.focusedInside === 'empty_text' ? 'focused' : undefined;
    if (!typeInto) {
      const what = f.kind === 'filled_text' || f.focusedInside === 'filled_text' ? 'a text field that already holds text' : 'no text field';
      // A bad target changes nothing: the capture stays usable for another point.
      throw new BrowserdError('validation_error', `type goes only into an empty text field, and the point (${args.x}, ${args.y}) is on ${what} (nor has an empty one inside the challenge focus)`, {
        next: 'Point at the empty answer field of the challenge in the image, or click it first with action "click" (after a new inspect).',
      });
    }
  }
  consume();
  await ensureRouted(conn, tab, c.frames, c.frame, at);
  const mark = tab.mark();
  if (args.action === 'click') await mouseClick(tab, at.x, at.y);
  else if (args.action === 'drag') await drag(tab, at, to!, DRAG_STEPS);
  else {
    if (typeInto === 'point') {
      await mouseClick(tab, at.x, at.y);
      const f = await fieldsFor(conn, c.frames, c.frame, c.selector, at);
      if (f.focusedInside !== 'empty_text') {
        throw new BrowserdError('action_failed', 'the click did not put the focus in an empty text field, so nothing was typed', { next: 'Inspect again and look at what the field shows now.' });
      }
    }
    // Inserted as text into the focused field of the frame's own renderer: no key events, so no Enter and no
    // implicit submission can come of it.
    await conn.send('Input.insertText', { text: args.text! }, c.frame.session);
  }
  await afterAction(tab, mark);
  // A frame that navigated or went away no longer shows the container: the act moved the challenge on.
  const after = await findContainer(conn, c.frames, c.frame, c.selector, false).catch(() => ({ state: 'missing' as const }));
  const stillShows = after.state === 'shown';
  const misses = stillShows ? state.addMiss(c.user, c.tabId, page) : state.missesOn(c.user, c.tabId, page);
  return { stillShows, misses, at, to };
}

export { MISSES_BEFORE_HANDOFF };
