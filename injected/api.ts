/**
 * The contract between the daemon and the in-page script. The script is bundled by esbuild (scripts/build-injected.ts)
 * into injected/generated/source.ts and runs in an isolated world named `browserd` in every frame, so the page can
 * neither see nor tamper with it. It installs `globalThis.__browserd: InjectedApi`.
 *
 * Every function takes plain JSON and returns plain JSON (it is called through Runtime.evaluate with
 * returnByValue). Refs are `eN` in the top document and `fK:eN` inside same-origin frame K (frames numbered in
 * document order by the top document's script). A ref is cached on its element and reused while the element
 * lives; resolve() accepts every ref handed out in the current document by any call while its element lives.
 * One visibility predicate (injected/visibility.ts) serves snapshot, readText, findText, query, extract, html.
 *
 * Hidden (left out of every read unless includeHidden): display:none, visibility hidden/collapse, opacity 0 on
 * the element or an ancestor, the `hidden` attribute, closed <details> content, zero-size boxes that clip
 * their overflow (sr-only), clip: rect(0 0 0 0), clip-path inset(50%)/circle(0), scale(0), boxes entirely
 * outside the document's scrollable area (left:-9999px) or outside an overflow:hidden ancestor, font-size 0,
 * transparent text, text-indent image replacement, text the colour of its effective background, comments,
 * <template>, script/style. Below the fold is visible (a person can scroll there). aria-hidden="true" content
 * is visible text for reads and query, but left out of the accessibility snapshot.
 *
 * Selectors taken by query (css, scope) and check (selector) match across open shadow roots and same-origin
 * frames; ` >>> ` chains scopes (`my-app >>> button.save`, `iframe#pay >>> input[name="card"]`), and
 * QueryMatch.locator uses that form for elements inside shadow roots or frames.
 *
 * Frames: the top document's script enters same-origin frames itself (refs `fK:eN`, K given in the order it
 * first meets each <iframe>, kept while that element lives). A cross-origin frame is not entered; its own
 * `browserd` world, called by the daemon through the frame's session, numbers refs `eN` within its document,
 * and the daemon shows them as `fK:eN` (daemon/browser/cross-frames.ts; see frameMark).
 *
 * Every function answers through one envelope (InjectedAnswer): `{ok: true, value}` with the result typed
 * below, or `{ok: false, code, message, details?}` with a code from the daemon's closed set. Functions throw
 * an InjectedError (failure.ts) and index.ts wraps each once; Tab.call unwraps. The failures each function may
 * give are listed beside it. findText's total is an addition beyond the first contract.
 */

/** What refs.ts's resolve() gives for a ref it cannot use (internal to the script; never returned as a value). */
export type RefError = { error: 'stale_ref' | 'not_found'; message: string };

/** The codes the script may fail with: a subset of protocol/errors.ts, kept in step by the typecheck in Tab.call. */
export type InjectedFailureCode = 'stale_ref' | 'not_found' | 'refused' | 'action_failed' | 'validation_error';

export type InjectedAnswer<T> =
  | { ok: true; value: T }
  | { ok: false; code: InjectedFailureCode; message: string; details?: Record<string, unknown> };

/** Why an element cannot take a real pointer or a value (details.reason of a `refused` failure). */
export type RefusedReason = 'covered' | 'disabled' | 'not_visible' | 'outside_viewport' | 'readonly';

/**
 * frameMark: the daemon's per-call token. With it, each frame the script cannot enter (cross-origin) is written
 * as `<frameMark><K>_` where its content goes (snapshot: at the end of its iframe line; readText: a line of its
 * own; visibleHtml: inside its <div data-frame-src>) and K is listed in `frames`; the daemon puts the frame's
 * own reading there. Page text cannot forge the token: it is random per call.
 */
export interface FrameMarkOptions { frameMark?: string }
export interface SnapshotOptions extends FrameMarkOptions { includeHidden?: boolean; markNewSince?: boolean }
export interface SnapshotResult {
  url: string;
  title: string;
  /**
   * Indented lines (2 spaces per level): `- role "name" [ref=e3] [checked] value="..."`, `- text: ...`,
   * table rows as `- cell|cell|Edit [ref=e9]` (a link in a cell is its text and ref), `- iframe "url" (cross-origin)`. With
   * markNewSince, a line whose element had no line in the previous snapshot has `*` before its dash:
   * `  *- link "Shoes" [ref=e14]`. Format details in injected/snapshot.ts.
   */
  text: string;
  refCount: number;
  /** Iframes that could not be entered (cross-origin), listed so the agent knows they exist. */
  skippedFrames: { url: string }[];
  /** With frameMark: the numbers of the frames marked in text. */
  frames?: number[];
}

/**
 * Centre of the element's visible box, in top-level viewport CSS pixels (frames' offsets added). Fails
 * `refused` with details.reason covered (details.coveredBy: a short description of the covering element,
 * page text), disabled, not_visible or outside_viewport.
 */
export interface PointResult { x: number; y: number }

/**
 * A field that took its value. `note`: the page rewrote the value (masking, formatting). Fails `refused`
 * (details.reason disabled or readonly), `validation_error` for an element that takes no value (file inputs:
 * browser_upload), a value the input type rejects, or no matching option (details.options: the select's
 * option texts, at most 20, page text), `action_failed` when the page kept a checkbox from changing.
 */
export interface FillResult { kind: 'text' | 'select' | 'checkbox' | 'radio' | 'contenteditable'; note?: string }

export interface ElementInfo {
  tag: string; role: string; name: string; text: string; type?: string; href?: string; disabled: boolean;
  formAction?: string; formMethod?: string;
  /** Names/types/autocomplete of the fields of the element's form (for the sensitive-action classifier). */
  formFields: { name: string; type: string; autocomplete: string; label: string }[];
  /** h1-h3 texts of the page, for the classifier. */
  headings: string[];
  isEditable: boolean;
}

/** A sign-in page as the login tools see it: refs of the visible, usable fields (login-fields.ts). */
export interface LoginView {
  username?: string; password?: string; code?: string; submit?: string;
  /** recaptcha, hcaptcha, turnstile or captcha, when one is shown. */
  captcha?: string;
  /** The page's visible error message near the form (page text). */
  error?: string;
  passwordInvalid: boolean;
}
/** The document a ref's element lives in (for secret filling: its host must belong to the vault entry). */
export interface SecretTarget { host: string; url: string; tag: string; type?: string }

export interface QueryOptions {
  css?: string; xpath?: string; text?: string; regex?: string; flags?: string;
  attr?: string[]; limit?: number; scope?: string; includeHidden?: boolean;
}
export interface QueryMatch { ref: string; tag: string; text: string; attrs: Record<string, string | null>; locator: string }
/** Fails validation_error for a bad selector, expression, flags or a scope that matches nothing. */
export interface QueryResult { matches: QueryMatch[]; total: number }

export interface FindTextMatch { ref: string; text: string; context: string }

export interface SimilarItem { ref: string; locator: string; text: string; fields: Record<string, string> }
/** Fails action_failed when the element is not part of a repeated pattern. itemLocator is built from class names: page text. */
export interface SimilarResult { items: SimilarItem[]; total: number; itemLocator: string }

export type ExtractKind = 'tables' | 'links' | 'meta' | 'form' | 'images';
export interface ExtractOptions { kind: ExtractKind; scope?: string; limit?: number; includeHidden?: boolean }
/** kind-specific rows; see extract.ts in injected/ for each shape. */
export interface ExtractResult {
  kind: ExtractKind;
  /** tables: {caption?, headers: string[], rows: string[][], locator}[]; links: {text, href, rel?}[]; meta: {name, content}[];
   *  form: {form, locator, action, method, fields: {name, type, label, value (passwords '••••'), options?, required, ref?}[]}[];
   *  images: {src, alt, width, height, source: 'img'|'background', link?, context}[] */
  items: unknown[];
  total: number;
}

/** listItems (list-items.ts), for scrollUntil (daemon/read/scroll-until.ts). */
export interface ListItemsOptions {
  /** CSS selector of one item; without it only the scroll state is answered. */
  item?: string;
  /** CSS selector of the scrolling element; default the document. */
  container?: string;
  /** Longest HTML kept per item. */
  maxItemChars?: number;
}

export interface ListItem {
  /** Text and identifying attributes (id, data-*, aria positions, link): the same row gives the same key. */
  key: string;
  html: string;
}

export interface ListItemsResult {
  items: ListItem[];
  /** The scroller's position, scrollable height and visible height, in CSS pixels. */
  top: number;
  height: number;
  client: number;
  /** Where a wheel over the scroller lands: the middle of its visible part, in viewport CSS pixels. */
  point: { x: number; y: number };
}

/** fileLinks (file-links.ts), for collect (daemon/docs/collect.ts). */
export interface PageFile {
  url: string;
  kind: 'link' | 'image' | 'media';
  /** A link's text or an image's alt (page text). */
  text?: string;
  /** The name a link's download attribute suggests. */
  download?: string;
  /** The MIME type a link's or source's type attribute declares. */
  type?: string;
  /** An image's size as shown, CSS pixels. */
  width?: number;
  height?: number;
}

/** The functions of the script as written (each may throw an InjectedError; see the envelope above). */
export interface InjectedApi {
  version: string;
  snapshot(opts: SnapshotOptions): SnapshotResult;
  /** Scrolls the element into view if needed and tells where a real pointer would hit it. */
  pointFor(ref: string): PointResult;
  /** Element click (dom mode): works on covered elements. Fires pointer/mouse down and up, focus, then click(). Fails refused (details.reason disabled). */
  clickDom(ref: string): void;
  /** Fails action_failed when the element cannot take focus. */
  focus(ref: string): void;
  /** Refuses (validation_error, reason bad_value) typing that would put an address over EMAIL_MAX_CHARS into a focused email field. */
  checkTyping(text: string): void;
  /** Sets text / select option (by text or value) / checkbox "true"|"false", firing input and change events. */
  fill(ref: string, value: string): FillResult;
  /** The element's border box in page (document) CSS pixels after scrolling it into view, for element screenshots. */
  rectFor(ref: string): { x: number; y: number; width: number; height: number };
  /** The element itself (called with returnByValue false, to get a CDP object id, e.g. for file inputs). */
  elementFor(ref: string): Element;
  /** Selects options of a <select> (multiple allowed) by visible text or value; fires input and change. */
  selectOptions(ref: string, values: string[]): FillResult & { selected: string[] };
  /** The scroll state of the page or of the element (for browser_scroll). */
  scrollState(ref?: string): { x: number; y: number; maxX: number; maxY: number };
  /** elementInfo of the focused element (where Enter goes); fails not_found when nothing is focused. */
  focusedInfo(): ElementInfo;
  elementInfo(ref: string): ElementInfo;
  /** elementInfo of what a pointer at viewport (x, y) hits (same-origin frames and open shadow roots entered);
   *  not_found over a cross-site frame or empty space. */
  elementInfoAt(x: number, y: number): ElementInfo;
  /** The visible text of the page (or of the element), one block per line, hidden text out unless asked. */
  readText(opts: { includeHidden?: boolean; ref?: string } & FrameMarkOptions): { text: string; title: string; url: string; frames?: number[] };
  /** `total` counts every match (up to 10,000), not only the `limit` returned. */
  findText(opts: { text: string; limit?: number; includeHidden?: boolean }): { matches: FindTextMatch[]; total?: number };
  query(opts: QueryOptions): QueryResult;
  /** Every element like the given one (same repeated-item pattern: siblings/cousins sharing tag+class structure), each with fields (title, link, price, image...). */
  similar(opts: { ref: string; limit?: number; includeHidden?: boolean }): SimilarResult;
  /** Fails validation_error for a bad scope or kind. */
  extract(opts: ExtractOptions): ExtractResult;
  /** True once the visible text contains `text` (case-insensitive) or `selector` matches a visible element. Fails validation_error for a bad selector. */
  check(opts: { text?: string; selector?: string; gone?: boolean }): boolean;
  /** The document as HTML with everything a person cannot see removed (unless includeHidden), for Markdown conversion. */
  visibleHtml(opts: { includeHidden?: boolean; dataAttrs?: boolean; bodyOnly?: boolean } & FrameMarkOptions): { html: string; url: string; title: string; frames?: number[] };
  /** Frames this script cannot enter (cross-origin), visible ones unless includeHidden, with their numbers K. */
  crossFrames(opts: { includeHidden?: boolean }): { k: number; url: string }[];
  /** The <iframe> element numbered K (for its CDP node). Fails stale_ref when it is gone. */
  frameOwner(k: number): Element;
  /** Scrolls frame K's element into view if needed; its content box's corner in top-viewport CSS pixels. */
  frameBox(k: number): { x: number; y: number };
  /** Fails refused (covered, outside_viewport) unless a pointer at top-viewport (x, y) lands on frame K itself. */
  frameHit(k: number, x: number, y: number): void;
  /** A frame number no <iframe> of this document holds (for frames the daemon reaches inside other frames). */
  reserveFrame(): number;
  /** The sign-in fields, submit button, CAPTCHA and error message of the page (hidden and decoy fields left out). */
  loginView(): LoginView;
  /** The submit button of the ref's form, or null. */
  submitFor(ref: string): string | null;
  secretTarget(ref: string): SecretTarget;
  /** Draws a field a secret is filled into as dots, whatever its type; remaskSecrets puts that back before a screenshot. */
  maskSecret(ref: string, value: string): void;
  remaskSecrets(values?: string[]): number;
  /** performance.timeOrigin of the main document: tells one document of a tab from the next. */
  documentStamp(): number;
  /** The items of a list (scrollUntil) in the order they show, each with a key naming its row, and the scroller's state. Fails validation_error for a bad selector or a container that matches nothing. */
  listItems(opts: ListItemsOptions): ListItemsResult;
  /** The files the page offers a person (links, embedded documents, images, audio and video), absolute URLs, hidden ones left out. */
  fileLinks(opts: { limit?: number }): PageFile[];
  /** Starts watching for the page to react to a scroll (scrollend, or a DOM mutation, then a pause in mutations), at most timeoutMs; call before the wheel turns. */
  watchChange(opts: { container?: string; scrolled: boolean; timeoutMs: number; quietMs?: number }): void;
  /** What ended the watch watchChange started. The one API function that answers a promise. */
  changed(): Promise<'scrolled' | 'mutated' | 'timeout'>;
}

export type InjectedFunctionName = Exclude<keyof InjectedApi, 'version'>;

/** What `globalThis.__browserd` is in the world: every function answers the envelope. */
export type InjectedWorld = { version: string } & {
  [K in InjectedFunctionName]: (...args: Parameters<InjectedApi[K]>) => InjectedAnswer<ReturnType<InjectedApi[K]>>;
};

/**
 * The longest address an email field is given (64 characters before the @, 255 after): Chromium's check of a
 * longer value takes seconds to minutes. Shared so the daemon asks the page only when typing is this long.
 */
export const EMAIL_MAX_CHARS = 320;
