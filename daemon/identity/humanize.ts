/**
 * Input as a person gives it, for documents that show the identity (unless profile.humanize is false): the
 * pointer travels a curved path from where it last was (ghost-cursor's Bezier and Fitts maths, nothing else of
 * it), and text is typed key by key at an uneven pace with the odd longer pause.
 */
import { lazyRequire } from '../lazy-require.js';
import type { Protocol } from 'devtools-protocol';

export interface Point { x: number; y: number }

/** Sends one CDP input command on the tab's session (Tab.send). */
type Send = (method: 'Input.dispatchMouseEvent', params: Protocol.Input.DispatchMouseEventRequest) => Promise<unknown>;

/** Longer than this, text goes in as a paste would: minutes of key presses help nobody. */
export const HUMAN_TYPING_MAX_CHARS = 1000;

/** ghost-cursor, loaded with the first humanized move (a user who never asks for one never needs it). */
const ghostCursor = lazyRequire<typeof import('ghost-cursor')>('ghost-cursor');

/** The points from `from` to `to`, both ends included, on a curve whose length and spread vary from move to move. */
export function curvedPath(from: Point, to: Point): Point[] {
  const points = ghostCursor().path(from, to).map((p) => ({ x: Math.round(p.x * 100) / 100, y: Math.round(p.y * 100) / 100 }));
  points[points.length - 1] = { ...to };
  return points;
}

/**
 * Moves the pointer along a curve to `to`. Each move is awaited: Chromium answers it at the next frame, which
 * paces the moves as a hand would be sampled. `held` keeps a button down (a drag).
 */
export async function moveAlong(send: Send, from: Point, to: Point, held?: { button: 'left'; buttons: number }, signal?: AbortSignal): Promise<Point> {
  let at = from;
  for (const p of curvedPath(from, to).slice(1)) {
    if (signal?.aborted) break;
    await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: p.x, y: p.y, ...(held ?? {}) });
    at = p;
  }
  return at;
}

/** A pause between two keys: mostly 30-120 ms, now and then the pause of someone finding the next key. */
export function keyGap(random: () => number = Math.random): number {
  if (random() < 0.06) return 250 + Math.round(random() * 400);
  return 30 + Math.round(random() * 90);
}

/** How long a button is held in a click: 40-110 ms. */
export function pressHold(random: () => number = Math.random): number {
  return 40 + Math.round(random() * 70);
}

export const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
