/** Key names and chords as CDP Input.dispatchKeyEvent needs them. An unknown name is a validation error. */
import { own } from '../../protocol/own.js';

export interface KeyDef { key: string; code: string; keyCode: number; text?: string; location?: number }

const NAMED: Record<string, KeyDef> = {
  Enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  Backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  Insert: { key: 'Insert', code: 'Insert', keyCode: 45 },
  Space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  Home: { key: 'Home', code: 'Home', keyCode: 36 },
  End: { key: 'End', code: 'End', keyCode: 35 },
  PageUp: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  PageDown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 },
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1 },
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1 },
};
for (let i = 1; i <= 12; i++) NAMED[`F${i}`] = { key: `F${i}`, code: `F${i}`, keyCode: 111 + i };

const ALIASES: Record<string, string> = { Esc: 'Escape', Return: 'Enter', Ctrl: 'Control', Cmd: 'Meta', Command: 'Meta', Option: 'Alt', Del: 'Delete', Up: 'ArrowUp', Down: 'ArrowDown', Left: 'ArrowLeft', Right: 'ArrowRight', ' ': 'Space' };

export const MODIFIER_BITS: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

function charKey(ch: string): KeyDef {
  const upper = ch.toUpperCase();
  if (/^[a-z]$/i.test(ch)) return { key: ch, code: `Key${upper}`, keyCode: upper.charCodeAt(0), text: ch };
  if (/^[0-9]$/.test(ch)) return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), text: ch };
  return { key: ch, code: '', keyCode: 0, text: ch };
}

export function resolveKey(name: string): KeyDef | undefined {
  const canon = own(ALIASES, name) ?? name;
  const named = own(NAMED, canon);
  if (named) return named;
  if ([...name].length === 1) return charKey(name);
  return undefined;
}

export const KEY_NAMES = Object.keys(NAMED);

/** "Control+Shift+A" -> modifiers and the main key. */
export function parseChord(chord: string): { modifiers: string[]; key: KeyDef } | { error: string } {
  const parts = chord === '+' ? ['+'] : chord.split(/\+(?!$)/);
  const mods: string[] = [];
  for (const p of parts.slice(0, -1)) {
    const canon = own(ALIASES, p) ?? p;
    if (!Object.hasOwn(MODIFIER_BITS, canon)) return { error: `"${p}" in "${chord}" is not a modifier (Control, Shift, Alt, Meta)` };
    mods.push(canon);
  }
  const last = parts.at(-1)!;
  const key = resolveKey(last);
  if (!key) return { error: `unknown key "${last}"; use a single character or one of ${KEY_NAMES.join(', ')}` };
  return { modifiers: mods, key };
}
