/**
 * Whether following a link would act rather than read: the judge behind DESTRUCTIVE_LINK_WORDS
 * (sensitive-rules.ts), asked by crawls and explores that read on the user's signed-in profile, where a GET
 * `/account/delete?id=1` or `/unsubscribe` carries the person's cookies and does what it says.
 *
 * The address is cut into pieces (each path segment, each query key and value), each piece into words (at
 * / - _ . + and camelCase, letters apart from digits). A piece acts when a table word stands at its start or its
 * end (after a reflexive "se"/"s'"), the piece is short (four words at most: longer is a slug or a title), and no
 * word of it makes it content ("guide", "how", "filters"). The link's text is judged the same way as one piece.
 * An address that cannot be parsed is judged to act: fail closed.
 */
import {
  DESTRUCTIVE_LINK_HARMLESS,
  DESTRUCTIVE_LINK_READING_SECTIONS,
  DESTRUCTIVE_LINK_WORDS,
  QUESTION,
  fold,
  type DestructiveAction,
  type DestructiveLinkWord,
} from './sensitive-rules.js';

export interface DestructiveVerdict {
  action: DestructiveAction;
  /** The table row that matched (tests check every row fires). */
  rule: string;
  /** The piece of the address or the text that named it, folded. */
  word: string;
  where: 'address' | 'text';
}

/** Longest piece, in words, that still reads as a command. */
const MAX_WORDS = 4;
/** Longest link text, in words, that still reads as a command ("Delete this item permanently"). */
const MAX_TEXT_WORDS = 5;
/** Leading words that do not change the command: "se désabonner", "s'abonner", "my-account-delete". */
const FILLERS = new Set(['yes', 'ja', 'oui', 'si', 'ok', 'se', 's', 'me', 'm', 'my', 'your', 'the', 'this', 'mon', 'ma', 'le', 'la', 'mi', 'tu', 'el', 'jetzt', 'now']);
/** Query keys whose values are what a person searches for, never an instruction: `?q=delete`. */
const SEARCH_KEYS = new Set(['q', 'query', 'search', 's', 'k', 'kw', 'keyword', 'keywords', 'term', 'terms', 'text', 'find', 'suche', 'recherche', 'buscar', 'busqueda']);
/** Language or region segments in front of a site's sections: /en/, /de-at/, /fr_FR/. */
const LOCALE = /^[a-z]{2}(?:[-_][a-z]{2,4})?$/i;
/** File extensions that carry no meaning of their own: delete.php is delete. */
const EXTENSIONS = new Set(['php', 'html', 'htm', 'asp', 'aspx', 'jsp', 'cgi', 'pl', 'do', 'action', 'json', 'xml', 'shtml']);

const HARMLESS = new Set(DESTRUCTIVE_LINK_HARMLESS.map((w) => fold(w)));
const SECTIONS = new Set(DESTRUCTIVE_LINK_READING_SECTIONS.map((w) => fold(w)));

/** A phrase's words as they appear folded in text, plus the ae/oe/ue spelling German URLs use. */
function spellings(phrase: string): string[][] {
  const plain = words(phrase);
  const transliterated = words(phrase.replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue').replace(/Ä/g, 'Ae').replace(/Ö/g, 'Oe').replace(/Ü/g, 'Ue'));
  return plain.join(' ') === transliterated.join(' ') ? [plain] : [plain, transliterated];
}

interface CompiledRow {
  row: DestructiveLinkWord;
  phrases: string[][];
  with?: Set<string>;
}

const ROWS: CompiledRow[] = DESTRUCTIVE_LINK_WORDS.map((row) => ({
  row,
  phrases: row.words.flatMap(spellings),
  ...(row.with ? { with: new Set(row.with.flatMap(spellings).flat()) } : {}),
}));

/** Folded words of a piece: camelCase and letter/digit runs apart, split at anything not a letter or digit. */
export function words(piece: string): string[] {
  const split = piece
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2');
  return fold(split)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const startsWith = (ws: string[], p: string[]) => p.length <= ws.length && p.every((w, i) => ws[i] === w);
const endsWith = (ws: string[], p: string[]) => p.length <= ws.length && p.every((w, i) => ws[ws.length - p.length + i] === w);

/** The row a piece's words name as an action, if any. `context` is every word of the link (for `with`). */
function judgePiece(raw: string[], context: Set<string>, maxWords: number, where: 'address' | 'text'): DestructiveVerdict | undefined {
  let ws = raw.filter((w) => !/^\d+$/.test(w));
  if (where === 'address' && ws.length > 1 && EXTENSIONS.has(ws[ws.length - 1]!)) ws = ws.slice(0, -1);
  while (ws.length > 1 && FILLERS.has(ws[0]!)) ws = ws.slice(1);
  if (!ws.length || ws.length > maxWords || ws.some((w) => HARMLESS.has(w))) return undefined;
  for (const { row, phrases, with: needs } of ROWS) {
    if (where === 'text' && row.addressOnly) continue;
    if (needs && ![...needs].some((w) => context.has(w))) continue;
    for (const p of phrases) {
      // Addresses name the thing first as often as the verb ("account-delete", "cart-add"); in text only German
      // puts the command last ("Konto löschen"): English "The big reset" is a headline.
      const atEnd = where === 'address' || row.lang === 'de';
      const hit = row.whole ? p.length === ws.length && startsWith(ws, p) : startsWith(ws, p) || (atEnd && endsWith(ws, p));
      if (hit) return { action: row.action, rule: row.id, word: ws.join(' '), where };
    }
  }
  return undefined;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The pieces of an address judged one by one: path segments (unless under a reading section) and the query. */
function addressPieces(u: URL): string[][] {
  const segments = u.pathname.split('/').filter(Boolean).map(decode);
  const first = segments.find((s) => !LOCALE.test(s));
  const pieces: string[][] = first !== undefined && SECTIONS.has(fold(first)) ? [] : segments.map(words);
  for (const [key, value] of new URLSearchParams(u.search)) {
    const keyWords = words(key);
    pieces.push(keyWords);
    // `?q=delete` searches for the word; `?filter=remove` narrows a list.
    if (SEARCH_KEYS.has(fold(key)) || keyWords.some((w) => HARMLESS.has(w))) continue;
    // A value that is itself an address (`?next=/account/delete`) is judged segment by segment: a redirect there
    // lands on it with the person's cookies.
    for (const part of value.split(/[/?&=#]/)) if (part) pieces.push(words(part));
  }
  return pieces;
}

/**
 * Why following `url` (with the link text `text`, when known) would act on the user's account, or undefined
 * when it only reads.
 */
export function destructiveLink(url: string, text?: string): DestructiveVerdict | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { action: 'delete', rule: 'unparsable', word: '', where: 'address' };
  }
  const pieces = addressPieces(u);
  const textWords = text ? words(text) : [];
  const context = new Set([...pieces.flat(), ...textWords]);
  for (const p of pieces) {
    const v = judgePiece(p, context, MAX_WORDS, 'address');
    if (v) return v;
  }
  if (textWords.length && !QUESTION.test(fold(text!))) return judgePiece(textWords, context, MAX_TEXT_WORDS, 'text');
  return undefined;
}

/** The reason a skipped link shows, in the crawl's item or the explore's map. */
export function destructiveReason(v: DestructiveVerdict): string {
  const what = v.action.replace('_', ' ');
  const where = v.rule === 'unparsable' ? 'its address cannot be parsed' : v.where === 'text' ? `its link text says "${v.word}"` : `its address says "${v.word}"`;
  return `not fetched on the signed-in profile: it looks like an action (${what}; ${where}), and reading there must not act. Mode http reads without the profile's cookies.`;
}

const SIGN_OUT = /(?:^|[/_.?&=-])(?:log-?out|log-?off|sign-?out|sign-?off)(?:$|[/_.?&=-])/i;

/**
 * A link that ends the user's session when merely fetched (GET /logout is common). Crawls and explores of the
 * user's signed-in profile never follow one: reading must not sign the person out.
 */
export function looksLikeSignOut(url: string): boolean {
  try {
    const u = new URL(url);
    return SIGN_OUT.test(u.pathname + u.search);
  } catch {
    return false;
  }
}

/** Why going to `url` would act on the signed-in profile (sign-out, or a destructive link above), or undefined. */
export function actionRefusal(url: string, onProfile: boolean): string | undefined {
  if (looksLikeSignOut(url)) return 'it looks like a sign-out address, and reading must not sign the person out';
  const acts = onProfile ? destructiveLink(url) : undefined;
  return acts ? destructiveReason(acts) : undefined;
}

/** How a refused redirect is named in the page's reason. */
export const redirectReason = (from: string | undefined, to: string, why: string) => `the redirect${from ? ` from ${from}` : ''} to ${to} was not followed: ${why}`;
