/** Pointer gestures beyond a click (input.ts): a drag in steps and a wheel turn. Points are viewport CSS pixels. */
import type { Tab } from './tab.js';
import { moveAlong } from '../identity/humanize.js';

type Point = { x: number; y: number };

/**
 * Press at `from`, move in `steps` even steps, release at `to`: what drag-and-drop handlers expect. When
 * `signal` aborts (the caller gave up), it stops moving and lets go where the pointer is, not on the target:
 * the page is not left mid-drag and the drop the caller gave up on does not happen.
 */
export async function drag(tab: Tab, from: Point, to: Point, steps: number, signal?: AbortSignal): Promise<void> {
  if (tab.humanInput()) return humanDrag(tab, from, to, signal);
  tab.pointer = to;
  await tab.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: from.x, y: from.y });
  await tab.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: from.x, y: from.y, button: 'left', buttons: 1, clickCount: 1 });
  let at = from;
  for (let i = 1; i <= steps && !signal?.aborted; i++) {
    at = { x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps };
    await tab.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: at.x, y: at.y, button: 'left', buttons: 1 });
  }
  await tab.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: at.x, y: at.y, button: 'left', buttons: 0, clickCount: 1 });
}

/** Where the identity applies: to the start on a curve, press, a curve to the end with the button held, release. */
async function humanDrag(tab: Tab, from: Point, to: Point, signal?: AbortSignal): Promise<void> {
  tab.pointer = await moveAlong(tab.send, tab.pointer, from, undefined, signal);
  if (signal?.aborted) return;
  await tab.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: from.x, y: from.y, button: 'left', buttons: 1, clickCount: 1 });
  const at = await moveAlong(tab.send, from, to, { button: 'left', buttons: 1 }, signal);
  tab.pointer = at;
  await tab.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: at.x, y: at.y, button: 'left', buttons: 0, clickCount: 1 });
}

/** One wheel event over a point. Acknowledged before the compositor scrolls: callers that need the new position wait for it. */
export async function wheel(tab: Tab, at: Point, dx: number, dy: number): Promise<void> {
  await tab.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: at.x, y: at.y, deltaX: dx, deltaY: dy });
}
