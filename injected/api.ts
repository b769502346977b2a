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
 * `browserd` world, if called, numbers refs `eN` within its document.
 *
 * Additions beyond the first contract (all optional): FillResult.reason/options, the `reason` of clickDom and
 * focus results, readText's error/message for a bad ref, findText's total.
 */

export type RefError = { error: 'stale_ref' | 'not_found'; message: string };

export interface SnapshotOptions { includeHidden?: boolean; markNewSince?: boolean }
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
}

export interface PointResult {
  ok: boolean;
  /** Centre of the element's visible box, in top-level viewport CSS pixels (frames' offsets added). */
  x?: number; y?: number;
  reason?: 'covered' | 'disabled' | 'not_visible' | 'stale_ref' | 'outside_viewport';
  /** A short description of the covering element, when covered. */
  coveredBy?: string;
  message?: string;
}

export interface FillResult {
  ok: boolean; kind?: 'text' | 'select' | 'checkbox' | 'radio' | 'contenteditable'; message?: string;
  /** Why it failed: a stale ref, a disabled or read-only field, an element that takes no value (file inputs
   *  say to use browser_upload), no option matching (select), or a value the input type rejects. */
  reason?: 'stale_ref' | 'disabled' | 'readonly' | 'not_fillable' | 'no_option' | 'bad_value';
  /** With reason no_option: the select's option texts (at most 20). */
  options?: string[];
}

export interface ElementInfo {
  tag: string; role: string; name: string; text: string; type?: string; href?: string; disabled: boolean;
  formAction?: string; formMethod?: string;
  /** Names/types/autocomplete of the fields of the element's form (for the sensitive-action classifier). */
  formFields: { name: string; type: string; autocomplete: string; label: string }[];
  /** h1-h3 texts of the page, for the classifier. */
  headings: string[];
  isEditable: boolean;
}

export interface QueryOptions {
  css?: string; xpath?: string; text?: string; regex?: string; flags?: string;
  attr?: string[]; limit?: number; scope?: string; includeHidden?: boolean;
}
export interface QueryMatch { ref: string; tag: string; text: string; attrs: Record<string, string | null>; locator: string }
export interface QueryResult { matches: QueryMatch[]; total: number; error?: string }

export interface FindTextMatch { ref: string; text: string; context: string }

export interface SimilarItem { ref: string; locator: string; text: string; fields: Record<string, string> }
export interface SimilarResult { items: SimilarItem[]; total: number; itemLocator: string; error?: string }

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
  error?: string;
}

export interface InjectedApi {
  version: string;
  snapshot(opts: SnapshotOptions): SnapshotResult;
  /** Scrolls the element into view if needed and tells where a real pointer would hit it, or why it cannot. */
  pointFor(ref: string): PointResult;
  /** Element click (dom mode): works on covered elements. Fires pointer/mouse down and up, focus, then click(). */
  clickDom(ref: string): { ok: boolean; message?: string; reason?: 'stale_ref' | 'disabled' };
  focus(ref: string): { ok: boolean; message?: string; reason?: 'stale_ref' };
  /** Sets text / select option (by text or value) / checkbox "true"|"false", firing input and change events. */
  fill(ref: string, value: string): FillResult;
  /** The element's border box in page (document) CSS pixels after scrolling it into view, for element screenshots. */
  rectFor(ref: string): { x: number; y: number; width: number; height: number } | RefError;
  /** The element itself (called with returnByValue false, to get a CDP object id, e.g. for file inputs). */
  elementFor(ref: string): Element | RefError;
  /** Selects options of a <select> (multiple allowed) by visible text or value; fires input and change. */
  selectOptions(ref: string, values: string[]): FillResult & { selected?: string[] };
  /** The scroll state of the page or of the element (for browser_scroll). */
  scrollState(ref?: string): { x: number; y: number; maxX: number; maxY: number } | RefError;
  /** elementInfo of the focused element (where Enter goes), or an error when nothing is focused. */
  focusedInfo(): ElementInfo | RefError;
  elementInfo(ref: string): ElementInfo | RefError;
  /** The visible text of the page (or of the element), one block per line, hidden text out unless asked. */
  readText(opts: { includeHidden?: boolean; ref?: string }): { text: string; title: string; url: string; error?: RefError['error']; message?: string };
  /** `total` counts every match (up to 10,000), not only the `limit` returned. */
  findText(opts: { text: string; limit?: number; includeHidden?: boolean }): { matches: FindTextMatch[]; total?: number };
  query(opts: QueryOptions): QueryResult;
  /** Every element like the given one (same repeated-item pattern: siblings/cousins sharing tag+class structure), each with fields (title, link, price, image...). */
  similar(opts: { ref: string; limit?: number; includeHidden?: boolean }): SimilarResult;
  extract(opts: ExtractOptions): ExtractResult;
  /** True once the visible text contains `text` (case-insensitive) or `selector` matches a visible element. */
  check(opts: { text?: string; selector?: string; gone?: boolean }): boolean;
  /** The document as HTML with everything a person cannot see removed (unless includeHidden), for Markdown conversion. */
  visibleHtml(opts: { includeHidden?: boolean }): { html: string; url: string; title: string };
}
