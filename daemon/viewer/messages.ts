/**
 * What a viewer page may send, checked field by field: a message is either exactly one of these shapes or it
 * is refused with a clear error and changes nothing. Pointer positions arrive as fractions of the frame
 * (0..1), so the server, not the page, decides where they land in the tab.
 */
import { BrowserdError } from '../../protocol/errors.js';

export type ViewerMessage =
  | { type: 'mouse'; event: 'down' | 'up' | 'move'; x: number; y: number; button: 'left' | 'middle' | 'right' | 'none'; clickCount: number; modifiers: number }
  | { type: 'wheel'; x: number; y: number; deltaX: number; deltaY: number; modifiers: number }
  | { type: 'key'; event: 'down' | 'up'; key: string; code: string; keyCode: number; modifiers: number }
  | { type: 'paste'; text: string }
  | { type: 'navigate'; url: string }
  | { type: 'history'; action: 'back' | 'forward' | 'reload' }
  | { type: 'tab'; id: string };

/** Messages that act on the page: refused on a view-only link. */
export const INPUT_TYPES = new Set<ViewerMessage['type']>(['mouse', 'wheel', 'key', 'paste', 'navigate', 'history']);

export const MAX_PASTE = 10_000;

const bad = (why: string) => new BrowserdError('validation_error', `viewer message: ${why}`, { next: 'Reload the viewer page.' });

function fraction(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) throw bad(`${name} must be a number from 0 to 1`);
  return v;
}
function int(v: unknown, name: string, min: number, max: number, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(`${name} must be a whole number from ${min} to ${max}`);
  return v;
}
function str(v: unknown, name: string, max: number, min = 0): string {
  if (typeof v !== 'string' || v.length > max || v.length < min) throw bad(`${name} must be text of ${min} to ${max} characters`);
  return v;
}
function oneOf<T extends string>(v: unknown, name: string, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw bad(`${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}

export function parseViewerMessage(text: string): ViewerMessage {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text);
  } catch {
    throw bad('not JSON');
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw bad('not an object');
  const type = m.type;
  const modifiers = () => int(m.modifiers, 'modifiers', 0, 15, 0);
  switch (type) {
    case 'mouse':
      return {
        type,
        event: oneOf(m.event, 'event', ['down', 'up', 'move'] as const),
        x: fraction(m.x, 'x'),
        y: fraction(m.y, 'y'),
        button: oneOf(m.button ?? 'none', 'button', ['left', 'middle', 'right', 'none'] as const),
        clickCount: int(m.clickCount, 'clickCount', 0, 3, 0),
        modifiers: modifiers(),
      };
    case 'wheel':
      return { type, x: fraction(m.x, 'x'), y: fraction(m.y, 'y'), deltaX: int(Math.round(Number(m.deltaX ?? 0)), 'deltaX', -10000, 10000), deltaY: int(Math.round(Number(m.deltaY ?? 0)), 'deltaY', -10000, 10000), modifiers: modifiers() };
    case 'key':
      return { type, event: oneOf(m.event, 'event', ['down', 'up'] as const), key: str(m.key, 'key', 32, 1), code: str(m.code ?? '', 'code', 32), keyCode: int(m.keyCode, 'keyCode', 0, 255, 0), modifiers: modifiers() };
    case 'paste':
      return { type, text: str(m.text, 'text', MAX_PASTE, 1) };
    case 'navigate':
      return { type, url: str(m.url, 'url', 8192, 1) };
    case 'history':
      return { type, action: oneOf(m.action, 'action', ['back', 'forward', 'reload'] as const) };
    case 'tab':
      return { type, id: str(m.id, 'id', 80, 1) };
    default:
      throw bad(`unknown type ${JSON.stringify(String(type)).slice(0, 40)}`);
  }
}
