// The tokenizer behind BM25 passage ranking: small, predictable, no model.
//
// - lower case, Latin diacritics folded (café = cafe), NFKC for width variants;
// - words are runs of Unicode letters/marks/digits, so any script works;
// - Chinese/Japanese runs (no spaces between words) become character bigrams,
//   the usual dictionary-free way to index them;
// - stopwords of English and the commonest of German, French and Spanish go;
// - English plural -s is stripped lightly (grams -> gram, classes -> class,
//   berries -> berry) but not from -ss/-us/-is words (process, status, analysis).

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
// ー (the katakana long-vowel mark) is Script=Common but part of katakana words.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]+/u;
const CJK_SPLIT = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]+)/u;
const LATIN = /^[a-z]+$/;

const STOPWORDS = new Set(
  [
    // English
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its',
    'me my no not of on or our she so than that the their them then there these they this those to too was we were what',
    'when where which who whom why will with would you your yours about after all also any because before between both',
    'each few more most other over same some such under until up very just out off own only once here again further',
    // German
    'der die das den dem des ein eine einer eines einem einen und oder ist sind war nicht mit von zu zum zur auf für im',
    'auch sich es ich du er sie wir ihr als wie bei aus nach über noch',
    // French
    'le la les un une des du et est sont ou pas pour par sur dans au aux ce cette ces qui que il elle ils nous vous je avec',
    // Spanish
    'el los las unos unas y o es son por para con del al lo su sus que se en este esta estos estas una',
    // shared by several of them
    'de en',
  ]
    .join(' ')
    .split(' '),
);

export function tokenize(text: string): string[] {
  const norm = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // Latin/Greek/Cyrillic accents only; other scripts' marks are letters' parts
    .normalize('NFKC')
    .toLowerCase();
  const out: string[] = [];
  for (const [word] of norm.matchAll(WORD)) {
    if (CJK.test(word)) {
      for (const part of word.split(CJK_SPLIT)) {
        if (!part) continue;
        if (CJK.test(part)) pushBigrams(part, out);
        else pushWord(part, out);
      }
    } else {
      pushWord(word, out);
    }
  }
  return out;
}

function pushWord(w: string, out: string[]): void {
  if (STOPWORDS.has(w)) return;
  // A lone Latin letter (the "s" of "it's") carries nothing; lone digits do.
  if (w.length === 1 && /[a-z]/.test(w)) return;
  out.push(stem(w));
}

function pushBigrams(run: string, out: string[]): void {
  const chars = [...run];
  if (chars.length === 1) {
    out.push(chars[0]);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
}

/** Light English plural stripping. */
export function stem(w: string): string {
  if (w.length <= 3 || !LATIN.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return w.slice(0, -3) + 'y';
  if (/(?:ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}
