/**
 * Real input events through CDP: pointer clicks, key presses, text. Where the persistent identity applies (and
 * profile.humanize is not false) the pointer travels a curve from where it was and text is typed key by key
 * at a person's uneven pace (daemon/identity/humanize.ts); elsewhere input is sent as fast as it can be.
 */
import type { Tab } from './tab.js';
import { EMAIL_MAX_CHARS } from '../../injected/api.js';
import { MODIFIER_BITS, resolveKey, type KeyDef } from './keys.js';
import { HUMAN_TYPING_MAX_CHARS, keyGap, moveAlong, pause, pressHold } from '../identity/humanize.js';
import { own } from '../../protocol/own.js';

export async function mouseClick(tab: Tab, x: number, y: number, opts: { button?: 'left' | 'right' | 'middle'; clickCount?: number } = {}) {
  const button = opts.button ?? 'left';
  const clickCount = opts.clickCount ?? 1;
  if (tab.humanInput()) return humanClick(tab, x, y, button, clickCount);
  tab.pointer = { x, y };
  // Move, press and release are sent together: the browser handles one session's input events in the order
  // they were sent, so the press still comes after the move (hover effects included) and the release after
  // the press, and the click costs one round trip instead of three. The move is not awaited: its ack waits
  // for the next animation frame (~11 ms), and the release's ack already says the move was handled before it.
  const moved = tab.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
  const pressed = tab.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button, clickCount });
  const released = tab.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button, clickCount });
  moved.catch(() => undefined);
  pressed.catch(() => undefined);
  await released;
  await pressed;
}

/** The pointer's way to the point, a short rest, then each press held as long as a finger holds it. */
async function humanClick(tab: Tab, x: number, y: number, button: 'left' | 'right' | 'middle', clickCount: number) {
  tab.pointer = await moveAlong(tab.send, tab.pointer, { x, y });
  await pause(30 + Math.round(Math.random() * 80));
  for (let n = 1; n <= clickCount; n++) {
    await tab.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button, clickCount: n });
    await pause(pressHold());
    await tab.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button, clickCount: n });
    if (n < clickCount) await pause(60 + Math.round(Math.random() * 60));
  }
}

export async function mouseMove(tab: Tab, x: number, y: number) {
  if (tab.humanInput()) {
    tab.pointer = await moveAlong(tab.send, tab.pointer, { x, y });
    return;
  }
  tab.pointer = { x, y };
  await tab.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
}

function modifierMask(mods: string[]) {
  return mods.reduce((m, k) => m | (own(MODIFIER_BITS, k) ?? 0), 0);
}

export async function pressKey(tab: Tab, key: KeyDef, modifiers: string[] = []) {
  let mask = 0;
  for (const m of modifiers) {
    mask |= own(MODIFIER_BITS, m) ?? 0;
    const d = resolveKey(m)!;
    await tab.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: d.key, code: d.code, windowsVirtualKeyCode: d.keyCode, modifiers: mask, location: d.location });
  }
  // Text is produced only without Control/Alt/Meta (a chord like Control+A is a command, not typing).
  const typesText = !!key.text && !(mask & (MODIFIER_BITS.Control | MODIFIER_BITS.Alt | MODIFIER_BITS.Meta));
  const text = typesText ? (mask & MODIFIER_BITS.Shift && key.text!.length === 1 ? key.text!.toUpperCase() : key.text) : undefined;
  await tab.send('Input.dispatchKeyEvent', { type: typesText ? 'keyDown' : 'rawKeyDown', key: key.key, code: key.code, windowsVirtualKeyCode: key.keyCode, text, unmodifiedText: text, modifiers: mask, location: key.location });
  await tab.send('Input.dispatchKeyEvent', { type: 'keyUp', key: key.key, code: key.code, windowsVirtualKeyCode: key.keyCode, modifiers: mask, location: key.location });
  for (const m of [...modifiers].reverse()) {
    mask &= ~(own(MODIFIER_BITS, m) ?? 0);
    const d = resolveKey(m)!;
    await tab.send('Input.dispatchKeyEvent', { type: 'keyUp', key: d.key, code: d.code, windowsVirtualKeyCode: d.keyCode, modifiers: mask, location: d.location });
  }
}

export { modifierMask };

/**
 * Types text into the focused element: insertText for speed, or key by key when the page listens to keys.
 * Key by key stops between keys once `signal` aborts (the caller gave up), throwing `onAbort()`.
 */
export async function typeText(tab: Tab, text: string, slowly = false, signal?: AbortSignal, onAbort: () => Error = () => new Error('typing was cancelled')) {
  if (text.length > EMAIL_MAX_CHARS) await tab.call('checkTyping', text);
  if (tab.humanInput() && [...text].length <= HUMAN_TYPING_MAX_CHARS) {
    let first = true;
    for (const ch of text) {
      if (signal?.aborted) throw onAbort();
      if (!first) await pause(keyGap());
      first = false;
      await pressKey(tab, ch === '\n' ? resolveKey('Enter')! : resolveKey(ch)!);
    }
    return;
  }
  if (!slowly) {
    await tab.send('Input.insertText', { text });
    return;
  }
  for (const ch of text) {
    if (signal?.aborted) throw onAbort();
    const k = ch === '\n' ? resolveKey('Enter')! : resolveKey(ch)!;
    await pressKey(tab, k);
  }
}
