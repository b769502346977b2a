/**
 * Finds the one-time code in the text of a message (an e-mail's subject and body, or an SMS).
 *
 * Messages carry many numbers besides the code: dates, times, amounts, phone numbers, order numbers, the
 * sender's postal code in the footer. A code is almost always written next to a word that names it ("code",
 * "OTP", "Bestätigungscode", "código de verificación"), so candidates are scored by how close such a word is,
 * and numbers that are clearly something else are masked out before anything is scored. Pure: no I/O.
 */

export interface CodeCandidate {
  code: string;
  start: number;
  end: number;
  /** Letters and digits ("G-123456", "ABC-123"): taken only when a code word labels it closely. */
  alnum: boolean;
}

// Words that name a code, in English, German, French and Spanish (Italian and Portuguese come along through
// "codice"/"código"). Strong words name the code itself; weak ones only say what the message is about.
const STRONG = [
  'code', 'codes', 'codice', 'código', 'codigo', 'otp', 'passcode', 'pin', 'tan', 'one-time', 'one time',
  'einmalpasswort', 'einmalkennwort', 'einmalcode', 'mot de passe à usage unique', 'mot de passe unique',
  'contraseña de un solo uso', 'clave', 'token', '2fa', 'mfa',
];
const WEAK = [
  'verification', 'verify', 'security', 'authentication', 'login', 'log in', 'sign-in', 'sign in', 'confirm',
  'confirmation', 'bestätigung', 'bestaetigung', 'sicherheit', 'anmeldung', 'anmelden', 'verifizierung', 'prüf',
  'vérification', 'verification', 'sécurité', 'connexion', 'verificación', 'verificacion', 'seguridad', 'acceso',
  'inicio de sesión', 'confirmación',
];
// Compound words that end in "code" (German "Bestätigungscode", English "passcode"), except the ones that
// are not one-time codes.
const CODE_SUFFIX = /[\p{L}]+(?:code|codes|kennwort|passwort)(?![\p{L}\p{N}])/giu;
const NOT_OTP_COMPOUND = /^(?:post|zip|bar|qr|promo|rabatt|gutschein|source|country|area|länder|vorwahl|kunden)/i;
// A code word right after one of these names something else: "promo code", "zip code", "area code".
const NEGATIVE_BEFORE = /(?:promo|promotional|discount|coupon|voucher|gift|gutschein|rabatt|zip|postal|post|area|country|tracking|referral|invite|invitation|order|bestell|code promo|código promocional|code postal|código postal|iban|swift|bic|sort)[\s:-]*$/i;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wordList = (words: string[]) => new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map(escape).sort((a, b) => b.length - a.length).join('|')})(?![\\p{L}\\p{N}])`, 'giu');
const STRONG_RE = wordList(STRONG);
const WEAK_RE = wordList(WEAK);

// Things that contain digits but are not codes. Each match is blanked out before candidates are looked for.
const MASKS: RegExp[] = [
  /\b(?:https?:\/\/|www\.)\S+/gi, // links (tracking ids, query strings)
  /[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+/g, // e-mail addresses (bounded: an unbounded run before @ is quadratic)
  /\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b/g, // dates: 23.11.2026, 2026-11-23, 11/23/26
  /\b\d{1,2}:\d{2}(?::\d{2})?\b/g, // times
  /(?:[$\u20ac\u00a3\u00a5\u20b9]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD)\b)\s?\d[\d.,' ]{0,24}/gi, // amounts with the currency first
  /\d[\d.,']{0,24}\s?(?:[$\u20ac\u00a3\u00a5\u20b9%]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|euros?|dollars?|Euro)\b)/gi, // ... or after
  /\b\d+(?:[.,]\d+)+\b/g, // decimals and thousands: 1,234.50 or 1.234
  /\+\d[\d\s().-]{6,24}\d/g, // international phone numbers
  /\(\d{2,5}\)\s?\d[\d\s.-]{3,20}\d/g, // (030) 123 4567
  /\b\d{2,5}(?:[ .-]\d{2,5}){2,}\b/g, // 030 1234 5678, 555-123-4567: three or more groups
  /(?:#|\b(?:no|nr|nº|n°|order|invoice|bestellung|rechnung|commande|pedido|ticket|case|ref)\.?\s*#?:?\s*)\d+/gi, // numbered records
];

// Where a footer starts: addresses and postal codes live below these.
const FOOTER = /unsubscribe|abbestellen|abmelden|désabonner|desabonner|darse de baja|cancelar suscripción|©|\(c\) ?\d{4}|copyright|all rights reserved|alle rechte|tous droits|todos los derechos|impressum|privacy policy|datenschutz|confidentialité|privacidad/i;

const blank = (text: string, re: RegExp) => text.replace(re, (m) => ' '.repeat(m.length));

/** Digits runs, "123 456" / "123-456" groups, and letter-digit codes, positioned in `text`. */
export function findCandidates(text: string): CodeCandidate[] {
  let masked = text;
  for (const re of MASKS) masked = blank(masked, re);
  const out: CodeCandidate[] = [];
  const taken = (s: number, e: number) => out.some((c) => s < c.end && e > c.start);
  for (const m of masked.matchAll(/(?<![\w-])(\d{3,4})[ -](\d{3,4})(?![\w-])/g)) {
    const digits = m[1]! + m[2]!;
    if (digits.length >= 6 && digits.length <= 8) out.push({ code: digits, start: m.index!, end: m.index! + m[0].length, alnum: false });
  }
  for (const m of masked.matchAll(/(?<![\w-])\d{4,8}(?![\w-])/g)) {
    if (!taken(m.index!, m.index! + m[0].length)) out.push({ code: m[0], start: m.index!, end: m.index! + m[0].length, alnum: false });
  }
  // Upper-case letters and digits with at least one of each: "G-123456", "ABC-123", "X7K2P9".
  for (const m of masked.matchAll(/(?<![\w-])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])(?:[A-Z]{1,4}-\d{3,8}|[A-Z0-9]{2,5}-[A-Z0-9]{2,5}|[A-Z0-9]{4,10})(?![\w-])/g)) {
    if (!taken(m.index!, m.index! + m[0].length)) out.push({ code: m[0], start: m.index!, end: m.index! + m[0].length, alnum: true });
  }
  return out.sort((a, b) => a.start - b.start);
}

interface Label {
  start: number;
  end: number;
  weight: number;
}

function labels(text: string): Label[] {
  const out: Label[] = [];
  const add = (start: number, end: number, weight: number) => {
    if (NEGATIVE_BEFORE.test(text.slice(Math.max(0, start - 24), start))) return;
    out.push({ start, end, weight });
  };
  for (const m of text.matchAll(STRONG_RE)) add(m.index!, m.index! + m[0].length, 1);
  for (const m of text.matchAll(CODE_SUFFIX)) if (!NOT_OTP_COMPOUND.test(m[0])) add(m.index!, m.index! + m[0].length, 1);
  for (const m of text.matchAll(WEAK_RE)) add(m.index!, m.index! + m[0].length, 0.6);
  return out;
}

const WINDOW = 80;
const MAX_SCAN = 20_000;
const YEAR = /^(?:19|20)\d\d$/;

/** Codes are often set apart on a line of their own ("Your code is below:" ... "Z4Q-7YB"). */
function aloneOnLine(c: CodeCandidate, text: string): boolean {
  const lineStart = text.lastIndexOf('\n', c.start - 1) + 1;
  const lineEnd = text.indexOf('\n', c.end);
  return !text.slice(lineStart, c.start).trim() && !text.slice(c.end, lineEnd < 0 ? text.length : lineEnd).trim();
}

/** How strongly the nearest code word points at a candidate: 0 when none is within reach. */
function labelScore(c: CodeCandidate, text: string, all: Label[], others: CodeCandidate[]): { score: number; gap: number } {
  let best = { score: 0, gap: Infinity };
  for (const l of all) {
    const before = l.end <= c.start;
    const gap = before ? c.start - l.end : l.start - c.end;
    const reach = aloneOnLine(c, text) ? WINDOW * 2 : WINDOW;
    if (gap < 0 || gap > reach) continue;
    // Another candidate in between is what that word labels, not this one.
    const [from, to] = before ? [l.end, c.start] : [c.end, l.start];
    if (others.some((o) => o !== c && o.start >= from && o.end <= to)) continue;
    // A sentence or line break in between weakens the link, but e-mails often put the code on its own line.
    const between = text.slice(from, to);
    const breaks = (between.match(/[.!?](?:\s|$)|\n/g) ?? []).length;
    const score = l.weight * (1 - gap / (reach + 1)) * (before ? 1.1 : 1) * (breaks > 2 ? 0.5 : 1);
    if (score > best.score) best = { score, gap };
  }
  return best;
}

/** A five-digit number next to a place name or a two-letter state is a postal code, not a code. */
function looksLikePostalCode(c: CodeCandidate, text: string): boolean {
  if (!/^\d{5}$/.test(c.code)) return false;
  const after = text.slice(c.end, c.end + 30);
  const before = text.slice(Math.max(0, c.start - 6), c.start);
  return /^\s+\p{Lu}\p{Ll}+/u.test(after) || /\b[A-Z]{2}\s+$/.test(before) || /\b[A-Z]-$/.test(before);
}

/**
 * The code in `text`, or undefined when no number there reads as one. `text` is plain text (subject first,
 * then the body); quoted-printable and base64 are the MIME parser's job, HTML the caller's.
 */
export function extractCode(input: string): string | undefined {
  // Codes sit near the top; a long newsletter is not worth scanning to its end.
  const text = input.slice(0, MAX_SCAN).normalize('NFKC');
  const candidates = findCandidates(text);
  if (!candidates.length) return undefined;
  const all = labels(text);
  const footerAt = (() => {
    const m = FOOTER.exec(text.slice(Math.floor(text.length * 0.3)));
    return m ? Math.floor(text.length * 0.3) + m.index : text.length;
  })();

  let best: { c: CodeCandidate; score: number } | undefined;
  for (const c of candidates) {
    const { score: raw, gap } = labelScore(c, text, all, candidates);
    if (raw === 0) continue;
    // A year or a postal code is taken only when a code word sits right next to it ("Code: 2024").
    if ((YEAR.test(c.code) || looksLikePostalCode(c, text)) && gap > 3) continue;
    if (c.alnum && ((gap > 30 && !aloneOnLine(c, text)) || raw < 0.5)) continue;
    let score = raw;
    if (c.code.replace(/\D/g, '').length === 6) score += 0.15;
    if (c.start >= footerAt) score *= 0.3;
    if (!best || score > best.score) best = { c, score };
  }
  if (best) return best.c.code;

  // No number sits near a code word. If the message talks about a code at all, a lone six-digit number
  // above the footer is the usual shape ("Your Example code" as subject, "482913" alone in the body).
  if (!all.some((l) => l.weight === 1)) return undefined;
  const plain = candidates.filter((c) => !c.alnum && c.start < footerAt && /^\d{6}$/.test(c.code));
  return plain.length === 1 ? plain[0]!.code : undefined;
}
