/**
 * Sign-in forms as the daemon's login tools see them: which visible field takes the user name, the password or
 * a one-time code, which button sends them, whether a CAPTCHA stands in the way and what error the page shows.
 * Only fields a person can see and use count, so a honeypot (display:none, off-screen, transparent) never
 * receives a secret. Also the two helpers secret filling needs: where a ref's document lives (its host must
 * belong to the vault entry) and masking of filled secret fields that a screenshot must not show.
 */
import type { LoginView, SecretTarget } from './api.js';
import { Ctx } from './ctx.js';
import { collapse, cut, frameDocument } from './dom.js';
import { elementOf } from './failure.js';
import { grant } from './refs.js';
import { contentText, isDisabled } from './roles.js';
import { isVisible } from './visibility.js';

const TEXTUAL = new Set(['text', 'email', 'tel', 'number', '']);
const USER_HINT = /user|e-?mail|login|account|identifier|ident|handle|phone|benutzer|konto/i;
const CODE_HINT = /otp|code|2fa|mfa|totp|token|verif|one.?time|passcode|pin\b/i;
const SUBMIT_TEXT = /^(sign|log)\s*-?\s*in|^continue|^next|^submit|^verify|^confirm|^weiter|^anmelden|^einloggen|^send|^go$|^ok$/i;
const CAPTCHA_FRAME = /recaptcha|hcaptcha\.com|challenges\.cloudflare\.com|turnstile/i;
const CAPTCHA_ELEMENT = '.g-recaptcha, .h-captcha, .cf-turnstile, [data-sitekey], [data-hcaptcha-widget-id], iframe[title*="captcha" i]';
const ERROR_ELEMENT = '[role=alert], [aria-live=assertive], .error, .errors, .alert, .invalid-feedback, .form-error, .login-error, [class*="error" i], [id*="error" i]';

/** The same-origin documents of the page: the top one and every frame we may enter. */
function documents(): Document[] {
  const out: Document[] = [document];
  for (let i = 0; i < out.length && out.length < 20; i++) {
    for (const f of Array.from(out[i].querySelectorAll('iframe,frame'))) {
      const d = frameDocument(f);
      if (d) out.push(d);
    }
  }
  return out;
}

function all<T extends Element>(selector: string): T[] {
  return documents().flatMap((d) => Array.from(d.querySelectorAll<T>(selector)));
}

/** A field a person can see and type into right now. */
function usable(el: Element, c: Ctx): boolean {
  const f = el as HTMLInputElement;
  return !isDisabled(el) && !f.readOnly && isVisible(el, c) && el.getAttribute('aria-hidden') !== 'true';
}

function hints(el: Element): string {
  const labels = (el as HTMLInputElement).labels;
  const labelText = labels ? Array.from(labels).map((l) => l.textContent ?? '').join(' ') : '';
  return [el.getAttribute('name'), el.id, el.getAttribute('placeholder'), el.getAttribute('aria-label'), labelText].filter(Boolean).join(' ');
}

/** The form (or, for forms without a <form>, the nearest ancestor holding other fields) a field belongs to. */
function scopeOf(el: Element): Element {
  const form = (el as HTMLInputElement).form;
  if (form) return form;
  let p = el.parentElement;
  for (let i = 0; p && i < 6; i++, p = p.parentElement) {
    if (p.querySelectorAll('input:not([type=hidden]),button').length > 1) return p;
  }
  return el.ownerDocument.body ?? el.ownerDocument.documentElement;
}

function isCodeField(el: HTMLInputElement): boolean {
  const type = el.type;
  if (!TEXTUAL.has(type) && type !== 'password') return false;
  const ac = (el.getAttribute('autocomplete') ?? '').toLowerCase();
  if (ac.includes('one-time-code')) return true;
  if (type === 'password' && !CODE_HINT.test(hints(el))) return false;
  if (USER_HINT.test(hints(el)) && !CODE_HINT.test(hints(el))) return false;
  if (CODE_HINT.test(hints(el))) return true;
  const max = el.maxLength;
  return (el.getAttribute('inputmode') === 'numeric' || type === 'number') && max >= 4 && max <= 8;
}

function isUserField(el: HTMLInputElement): boolean {
  if (!TEXTUAL.has(el.type)) return false;
  const ac = (el.getAttribute('autocomplete') ?? '').toLowerCase();
  if (ac.includes('username') || ac.split(/\s+/).includes('email')) return true;
  if (el.type === 'email') return true;
  return USER_HINT.test(hints(el)) && !CODE_HINT.test(hints(el));
}

/** The button that sends a field's form: its submit button, else a visible button whose text says so. */
function submitOf(field: Element, c: Ctx): Element | undefined {
  const scope = scopeOf(field);
  const form = (field as HTMLInputElement).form;
  const candidates = form
    ? Array.from(form.elements).filter((e) => (e.localName === 'button' && ((e as HTMLButtonElement).type || 'submit') === 'submit') || (e.localName === 'input' && ['submit', 'image'].includes((e as HTMLInputElement).type)))
    : [];
  const found = candidates.find((b) => isVisible(b, c) && !isDisabled(b));
  if (found) return found;
  const buttons = Array.from(scope.querySelectorAll('button, input[type=submit], input[type=button], [role=button]'));
  return buttons.find((b) => isVisible(b, c) && !isDisabled(b) && SUBMIT_TEXT.test(collapse(contentText(b, c) || (b as HTMLInputElement).value || '')));
}

function captchaOf(c: Ctx): string | undefined {
  for (const f of all<HTMLIFrameElement>('iframe')) {
    const src = f.getAttribute('src') ?? '';
    if (CAPTCHA_FRAME.test(src) && isVisible(f, c)) return /hcaptcha/i.test(src) ? 'hcaptcha' : /recaptcha/i.test(src) ? 'recaptcha' : 'turnstile';
  }
  const el = all(CAPTCHA_ELEMENT).find((e) => isVisible(e, c));
  if (!el) return undefined;
  const cls = `${el.className} ${el.getAttribute('title') ?? ''}`;
  return /h-captcha|hcaptcha/i.test(cls) ? 'hcaptcha' : /turnstile/i.test(cls) ? 'turnstile' : /recaptcha/i.test(cls) ? 'recaptcha' : 'captcha';
}

/** The visible error message of the page, preferring one inside the form in question. */
function errorOf(near: Element | undefined, c: Ctx): string | undefined {
  const candidates = all(ERROR_ELEMENT).filter((e) => e.localName !== 'input' && e.localName !== 'form' && isVisible(e, c));
  const text = (e: Element) => cut(collapse(contentText(e, c, 300)), 200);
  const inside = near ? candidates.filter((e) => scopeOf(near).contains(e)) : [];
  for (const e of [...inside, ...candidates]) {
    const t = text(e);
    if (t) return t;
  }
  return undefined;
}

/** What the sign-in tools need to know about the page as it is now (refs for the fields found). */
export function loginView(): LoginView {
  const c = new Ctx();
  const inputs = all<HTMLInputElement>('input').filter((i) => usable(i, c));
  const passwords = inputs.filter((i) => i.type === 'password' && !isCodeField(i));
  // Sign-up and change forms also ask for a new password; the current one is what a sign-in fills.
  const password = passwords.find((p) => /current-password/i.test(p.getAttribute('autocomplete') ?? '')) ?? passwords.find((p) => !/new-password/i.test(p.getAttribute('autocomplete') ?? ''));
  const code = password ? undefined : inputs.find((i) => isCodeField(i));
  const userScope = password ? scopeOf(password) : undefined;
  const textual = inputs.filter((i) => TEXTUAL.has(i.type) && i !== code && (!userScope || userScope.contains(i)));
  let username = textual.find(isUserField);
  if (!username && password) {
    // The text field just before the password in its form, as sign-in forms are laid out.
    username = textual.filter((i) => i.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
  }
  const main = password ?? code ?? username;
  const submit = main ? submitOf(main, c) : undefined;
  const view: LoginView = { passwordInvalid: !!password && password.getAttribute('aria-invalid') === 'true' };
  if (username) view.username = grant(username);
  if (password) view.password = grant(password);
  if (code) view.code = grant(code);
  if (submit) view.submit = grant(submit);
  const captcha = captchaOf(c);
  if (captcha) view.captcha = captcha;
  const error = errorOf(main, c);
  if (error) view.error = error;
  return view;
}

/** The button that sends the form of `ref` (for submit after filling a code), when there is one. */
export function submitFor(ref: string): string | null {
  const s = submitOf(elementOf(ref), new Ctx());
  return s ? grant(s) : null;
}

/** Where the element of a ref lives: its own document's host (a same-origin frame may still differ from the tab). */
export function secretTarget(ref: string): SecretTarget {
  const el = elementOf(ref);
  const loc = el.ownerDocument.defaultView?.location;
  const url = loc?.href ?? el.ownerDocument.URL;
  // about:blank and srcdoc frames take their parent's origin: judge them by it.
  const origin = el.ownerDocument.defaultView?.origin ?? '';
  let host = '';
  try {
    host = new URL(origin && origin !== 'null' ? origin : url).hostname;
  } catch {
    host = '';
  }
  return { host, url, tag: el.localName, type: el.localName === 'input' ? (el as HTMLInputElement).type : undefined };
}

// Filled secret fields and the values that went into them, held only in this isolated world: the page can
// neither see nor clear them, and they end with the document.
const masked = new Set<WeakRef<HTMLElement>>();
const filledValues = new Set<string>();
const MASK = '-webkit-text-security';

function applyMask(el: HTMLElement) {
  if (el.style.getPropertyValue(MASK) !== 'disc' || el.style.getPropertyPriority(MASK) !== 'important') el.style.setProperty(MASK, 'disc', 'important');
}

/**
 * Masks a field before a secret goes in, so it is drawn as dots whatever its type: a password field the page
 * later turns into a text field (its own "show password" button) stays dots too.
 */
export function maskSecret(ref: string, value: string): void {
  const el = elementOf(ref) as HTMLElement;
  applyMask(el);
  masked.add(new WeakRef(el));
  if (value) filledValues.add(value);
  guardFrames();
}

let guarding = false;

/**
 * Live views and recordings draw every frame, not only screenshots: before each frame of a document that holds
 * a filled value, the fields holding it are masked again (a page's "show password" may have copied it into a
 * new field or restyled one). requestAnimationFrame callbacks run before the frame is painted.
 */
function guardFrames() {
  if (guarding) return;
  guarding = true;
  const tick = () => {
    try {
      remaskFields(document.querySelectorAll('input, textarea'));
    } catch {
      // A page in the middle of tearing down: the next frame tries again.
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

function holdsFilled(el: Element): boolean {
  const v = (el as HTMLInputElement | HTMLTextAreaElement).value;
  if (!v) return false;
  for (const s of filledValues) if (v.includes(s)) return true;
  return false;
}

function remaskFields(fields: Iterable<Element>): number {
  let n = 0;
  for (const el of fields) {
    if (!holdsFilled(el)) continue;
    applyMask(el as HTMLElement);
    n++;
  }
  return n;
}

/** Text fields of a document and of its same-origin frames, open shadow roots included. */
function textFields(root: Document | ShadowRoot, out: HTMLElement[] = []): HTMLElement[] {
  for (const el of Array.from(root.querySelectorAll('*'))) {
    // By name, not instanceof: a frame's elements come from its own window's classes.
    if (el.localName === 'input' || el.localName === 'textarea') out.push(el as HTMLElement);
    if (el.shadowRoot) textFields(el.shadowRoot, out);
    const inner = el.localName === 'iframe' || el.localName === 'frame' ? frameDocument(el) : null;
    if (inner) textFields(inner, out);
  }
  return out;
}

/**
 * Puts the mask back on every filled secret field still in the page (the page may have restyled it), and masks
 * any other field that now holds a filled value (a page that shows a password by copying it into a new text
 * field, or the browser refilling a page brought back from history: `values` are the tab's filled values).
 */
export function remaskSecrets(values: string[] = []): number {
  for (const v of values) if (v) filledValues.add(v);
  let n = 0;
  for (const w of Array.from(masked)) {
    const el = w.deref();
    if (!el || !el.isConnected) {
      masked.delete(w);
      continue;
    }
    applyMask(el);
    n++;
  }
  if (!filledValues.size) return n;
  guardFrames();
  return n + remaskFields(textFields(document));
}

/** When this document began (performance.timeOrigin): tells one document of a tab from the next. */
export function documentStamp(): number {
  return performance.timeOrigin;
}
