/**
 * The closed set of error codes. One table maps each code to its HTTP status; the REST layer, the MCP layer,
 * openapi.yaml and the error table in docs/clients.md all read it from here (test/contract keeps them in step).
 */
export const ERROR_CODES = {
  validation_error: { status: 400, summary: 'The arguments are not what the tool or route accepts.' },
  unauthorized: { status: 401, summary: 'The bearer token is missing, wrong or was replaced.' },
  forbidden: { status: 403, summary: 'The caller may not use this route or origin.' },
  not_found: { status: 404, summary: 'No such tab, tool, file or record for this user.' },
  method_not_allowed: { status: 405, summary: 'The path exists but not with this HTTP method; the Allow header lists the ones it takes.' },
  payload_too_large: { status: 413, summary: 'The request body is larger than this route accepts.' },
  refused: { status: 403, summary: 'The action is not allowed here (read tab, covered element, policy).' },
  site_read_only: { status: 403, summary: "The user's host policy makes this site read-only." },
  blocked: { status: 403, summary: 'The address is blocked (host policy, allowedDomains, private network).' },
  stale_ref: { status: 409, summary: "The ref's element is no longer in the page (removed, or the page navigated)." },
  action_failed: { status: 422, summary: 'The action ran and failed in the page.' },
  budget_exceeded: { status: 422, summary: "The model call would pass its token budget (maxTokensTotal); nothing was sent." },
  rate_limited: { status: 429, summary: 'Too many requests from this client for now; Retry-After says when to try again.' },
  navigation_failed: { status: 502, summary: 'The page did not load.' },
  timeout: { status: 504, summary: 'The operation did not finish in time.' },
  browser_capacity: { status: 503, summary: 'The host already runs all the browsers it may run at once.' },
  browser_crashed: { status: 503, summary: "The user's browser stopped; it restarts on the next call." },
  shutting_down: { status: 503, summary: 'The daemon is stopping.' },
  browser_unavailable: { status: 503, summary: 'This host cannot start a browser (Chromium is missing or will not start): the admin must fix the host.' },
  not_configured: { status: 501, summary: 'The feature needs configuration the admin has not set.' },
  storage_full: { status: 507, summary: "The server's disk is full: nothing was stored. Reads still work; the same call succeeds once there is room." },
  internal_error: { status: 500, summary: 'An unexpected error in the daemon.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The details field that holds words a page chose (a thrown message, the element covering a target, a
 * select's option texts, a model's words about a page). The message itself never quotes a page: it says what
 * happened in our words, and the page's words travel here. Over MCP they are shown fenced, as page data; REST
 * callers get them in this one field, marked as page text in api/openapi.yaml.
 */
export const PAGE_TEXT_DETAIL = 'pageText';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  /** What the caller should do next, written for a model. */
  next?: string;
  details?: Record<string, unknown>;
}

export class BrowserdError extends Error {
  readonly code: ErrorCode;
  readonly next?: string;
  readonly details?: Record<string, unknown>;
  /** Seconds for a Retry-After header (browser_capacity). */
  readonly retryAfterS?: number;

  /** `pageText`: the page's own words the error is about (PAGE_TEXT_DETAIL); kept out of the message. */
  constructor(code: ErrorCode, message: string, opts: { next?: string; details?: Record<string, unknown>; retryAfterS?: number; pageText?: string } = {}) {
    super(message);
    this.name = 'BrowserdError';
    this.code = code;
    this.next = opts.next;
    this.details = opts.pageText === undefined ? opts.details : { ...opts.details, [PAGE_TEXT_DETAIL]: opts.pageText };
    this.retryAfterS = opts.retryAfterS;
  }

  /** The page's words this error carries, if any (details.pageText). */
  get pageText(): string | undefined {
    const v = this.details?.[PAGE_TEXT_DETAIL];
    return typeof v === 'string' ? v : undefined;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.next) body.next = this.next;
    if (this.details) body.details = this.details;
    return body;
  }
}

export function isBrowserdError(e: unknown): e is BrowserdError {
  return e instanceof BrowserdError;
}

/** Any thrown value as a BrowserdError; unknown errors become internal_error without leaking stack traces. */
export function toBrowserdError(e: unknown): BrowserdError {
  if (e instanceof BrowserdError) return e;
  if (isStoreFull(e)) {
    // Not the caller's doing and not a bug: say what it is, that nothing was kept, and that it passes.
    return new BrowserdError('storage_full', "the server's store could not save this: its disk is full (or failing); nothing was stored", {
      next: 'Tell the admin the server needs disk space. Reads still work, and the same call succeeds once there is room.',
    });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new BrowserdError('internal_error', message, { next: 'Retry once; if it repeats, report it to the admin with the time of the call.' });
}

export const fail = (code: ErrorCode, message: string, next?: string, details?: Record<string, unknown>): never => {
  throw new BrowserdError(code, message, { next, details });
};

/**
 * A write the disk refused: lmdb-js rejects a failed commit with an error carrying `commitError` (its map grows
 * on its own, so a full disk is what makes a commit fail), and file writes fail with ENOSPC.
 */
function isStoreFull(e: unknown): boolean {
  return e instanceof Error && ('commitError' in e || (e as NodeJS.ErrnoException).code === 'ENOSPC');
}
