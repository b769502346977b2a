/**
 * Where a challenge container is, in the tab's viewport: found by CSS in its frame's own renderer (an isolated
 * world, so page scripts cannot answer for the DOM), measured by that renderer's box model, and moved by the
 * offset of every out-of-process frame on the way up. Box models are relative to their session's local root
 * (the main frame, or an out-of-process frame), so same-process nesting is already counted in them.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { CdpConnection } from '../cdp/connection.js';
import type { FrameInfo } from './frames.js';

export interface Box { x: number; y: number; width: number; height: number }

const WORLD = 'browserd-captcha';
const GROUP = 'browserd-captcha';

/** The frame's isolated world (made once per document by Chromium; asking again returns a fresh context). */
export async function worldOf(conn: CdpConnection, frame: FrameInfo): Promise<number> {
  const r = await conn.send('Page.createIsolatedWorld', { frameId: frame.frameId, worldName: WORLD, grantUniveralAccess: false }, frame.session);
  return r.executionContextId;
}

/** A quad [x1,y1,...,x4,y4] as the rectangle around it. */
function rectOf(q: number[]): Box {
  const xs = [q[0], q[2], q[4], q[6]];
  const ys = [q[1], q[3], q[5], q[7]];
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** The point where a local root's (0, 0) sits in the tab's viewport. */
export async function localRootOffset(conn: CdpConnection, frames: readonly FrameInfo[], frame: FrameInfo): Promise<{ x: number; y: number }> {
  const root = frame.localRoot ? frame : frames.find((f) => f.session === frame.session && f.localRoot);
  if (!root || !root.parentSession || !root.parentFrameId) return { x: 0, y: 0 };
  const parent = frames.find((f) => f.frameId === root.parentFrameId);
  const owner = await conn.send('DOM.getFrameOwner', { frameId: root.frameId }, root.parentSession);
  const model = await conn.send('DOM.getBoxModel', { backendNodeId: owner.backendNodeId }, root.parentSession);
  // The content box: inside the <iframe>'s border and padding is where the frame's own (0, 0) is drawn.
  const content = rectOf(model.model.content);
  const above = parent ? await localRootOffset(conn, frames, parent) : { x: 0, y: 0 };
  return { x: above.x + content.x, y: above.y + content.y };
}

export type Found = { state: 'shown'; box: Box } | { state: 'hidden' } | { state: 'missing' };

/**
 * The container matched by `selector` in `frame`: its border box in the tab's viewport when it shows, or
 * whether it is hidden or missing. `scroll` first scrolls the frame's own document so the container is
 * centred in it (the documents above are the caller's to scroll). A selector the page's CSS engine rejects is a validation_error.
 */
export async function findContainer(conn: CdpConnection, frames: readonly FrameInfo[], frame: FrameInfo, selector: string, scroll: boolean): Promise<Found> {
  const contextId = await worldOf(conn, frame);
  const found = await conn.send(
    'Runtime.evaluate',
    { expression: `(() => { try { return document.querySelector(${JSON.stringify(selector)}); } catch { return 'bad selector'; } })()`, contextId, objectGroup: GROUP },
    frame.session,
  );
  try {
    if (found.result.type === 'string') {
      throw new BrowserdError('validation_error', `"${selector.slice(0, 200)}" is not a CSS selector the page accepts`, { next: 'Pass a plain CSS selector for the challenge container, e.g. "#captcha" or "div.challenge".' });
    }
    if (found.result.subtype !== 'node' || !found.result.objectId) return { state: 'missing' };
    const objectId = found.result.objectId;
    const shows = await conn.send(
      'Runtime.callFunctionOn',
      {
        objectId,
        functionDeclaration: `function (scroll) {
          let r = this.getBoundingClientRect();
          if (scroll && (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight)) {
            // This document only: scrollIntoView would also scroll the frames above, from another renderer and
            // late, after we measured. The documents above are scrolled by the caller, where it can wait.
            const by = (start, size, view) => (size > view ? start : start + size / 2 - view / 2);
            window.scrollBy({ left: by(r.left, r.width, innerWidth), top: by(r.top, r.height, innerHeight), behavior: 'instant' });
            r = this.getBoundingClientRect();
          }
          return r.width > 0 && r.height > 0 && this.checkVisibility({ opacityProperty: true, visibilityProperty: true });
        }`,
        arguments: [{ value: scroll }],
        returnByValue: true,
      },
      frame.session,
    );
    if (shows.result.value !== true) return { state: 'hidden' };
    const model = await conn.send('DOM.getBoxModel', { objectId }, frame.session);
    const border = rectOf(model.model.border);
    const at = await localRootOffset(conn, frames, frame);
    return { state: 'shown', box: { x: border.x + at.x, y: border.y + at.y, width: border.width, height: border.height } };
  } finally {
    void conn.sendMayFail('Runtime.releaseObjectGroup', { objectGroup: GROUP }, frame.session);
  }
}

/** What is under a point of the frame (viewport point of the tab), for typing: an empty text field or not. */
export interface FieldAt { kind: 'empty_text' | 'filled_text' | 'other' | 'none'; focusedInside: 'empty_text' | 'filled_text' | 'other' | 'none' }

/** Input types a person types words into; a checkbox, a date picker or a file input is not one. */
const TEXT_TYPES = ['text', 'search', 'tel', 'url', 'email', 'number', ''];

/**
 * The field under a viewport point (in the frame's own coordinates once the frame's offset is taken off) and
 * the focused element inside the container, each classified: only an empty, enabled, writable text input
 * may be typed into.
 */
export async function fieldsFor(conn: CdpConnection, frames: readonly FrameInfo[], frame: FrameInfo, selector: string, point: { x: number; y: number }): Promise<FieldAt> {
  const local = await frameLocal(conn, frames, frame, point);
  const contextId = await worldOf(conn, frame);
  const r = await conn.send(
    'Runtime.evaluate',
    {
      expression: `(() => {
        const TEXT = ${JSON.stringify(TEXT_TYPES)};
        const kind = (el) => {
          if (!el) return 'none';
          if (el.localName !== 'input' || !TEXT.includes((el.getAttribute('type') || '').toLowerCase()) || el.disabled || el.readOnly) return 'other';
          return el.value === '' ? 'empty_text' : 'filled_text';
        };
        const container = document.querySelector(${JSON.stringify(selector)});
        let active = document.activeElement;
        while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
        const focused = container && active && container.contains(active) ? active : null;
        return { kind: kind(document.elementFromPoint(${local.x}, ${local.y})), focusedInside: kind(focused) };
      })()`,
      contextId,
      returnByValue: true,
    },
    frame.session,
  );
  return (r.result.value as FieldAt | undefined) ?? { kind: 'none', focusedInside: 'none' };
}

/** A viewport point of the tab in the frame's own viewport coordinates (what clientX/Y and elementFromPoint use). */
export async function frameLocal(conn: CdpConnection, frames: readonly FrameInfo[], frame: FrameInfo, point: { x: number; y: number }): Promise<{ x: number; y: number }> {
  const at = await localRootOffset(conn, frames, frame);
  // A same-process child frame sits further in, by its <iframe>'s place in its local root.
  const own = frame.localRoot ? { x: 0, y: 0 } : await ownOffset(conn, frame);
  return { x: point.x - at.x - own.x, y: point.y - at.y - own.y };
}

/** A same-process frame's offset from its local root: its <iframe>'s content box in that renderer. */
async function ownOffset(conn: CdpConnection, frame: FrameInfo): Promise<{ x: number; y: number }> {
  const owner = await conn.send('DOM.getFrameOwner', { frameId: frame.frameId }, frame.session);
  const model = await conn.send('DOM.getBoxModel', { backendNodeId: owner.backendNodeId }, frame.session);
  const c = rectOf(model.model.content);
  return { x: c.x, y: c.y };
}
