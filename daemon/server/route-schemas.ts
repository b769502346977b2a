/**
 * The path, query and body schemas of the REST routes (TypeBox, like a tool's input): routes.ts attaches them to
 * its rows, route-input.ts and route-body.ts check every request against them, and scripts/docs.ts writes them
 * into api/openapi.yaml. One copy, so what is checked and what is documented cannot drift apart.
 */
import { Type, type TSchema, type TObject, type TProperties } from '@sinclair/typebox';
import { CACHE_NAME } from '../../protocol/ids.js';
import { TASK_STATES } from '../../protocol/tasks.js';
import { VAULT_FIELD, VAULT_NAME } from '../../storage/vault.js';
import { USER_NAME } from '../../protocol/ids.js';

/**
 * What the validator says when a value does not fit, beside the schema. A symbol key: JSON (the OpenAPI, the
 * ajv compile) never sees it.
 */
export const HINT = Symbol('routeHint');
export interface ParamHint {
  /** The whole message, where the shape-derived one would not say it well. */
  message?: string;
  /** What the value should be, as in `"x" is not <what>` (path) or `name must be <what>` (query). */
  what?: string;
  /** The `next` of the validation_error. */
  next?: string;
  /** An empty query value counts as leaving the parameter out. */
  emptyIsAbsent?: boolean;
}

export function hinted<S extends TSchema>(schema: S, hint: ParamHint): S {
  (schema as unknown as Record<symbol, ParamHint>)[HINT] = hint;
  return schema;
}

export const hintOf = (schema: TSchema): ParamHint => (schema as unknown as Record<symbol, ParamHint | undefined>)[HINT] ?? {};

/** A route's path parameters or query: named strings and whole numbers; unknown query keys are ignored. */
export const group = <P extends TProperties>(props: P): TObject<P> => Type.Object(props);

/** A path segment, decoded; `next` says what to send when it cannot be decoded. */
export const segment = (description: string | undefined, next: string, extra: Record<string, unknown> = {}) =>
  hinted(Type.String({ ...(description ? { description } : {}), ...extra }), { next });

export const cursor = (next: string, empty?: string) =>
  hinted(Type.String({ description: 'Opaque, from the previous page, valid for the caller only; anything else is validation_error.', ...(empty ? { minLength: 1 } : {}) }), { next, ...(empty ? { message: empty } : {}) });

export const limit = (min: number, max: number, dflt: number | undefined) => Type.Integer({ minimum: min, maximum: max, ...(dflt !== undefined ? { default: dflt } : {}) });

export const CURSOR_NEXT = 'Pass the cursor from your previous page unchanged, or omit it to start at the beginning.';

// ---- caches
export const CachePath = group({
  name: hinted(Type.String({ description: 'letters, digits, ".", "_", "-"', pattern: CACHE_NAME.source }), { what: 'a cache name', next: 'Cache names are 1-64 letters, digits, ".", "_" or "-" (GET /v1/caches lists yours).' }),
});

// ---- research and tasks: ids are checked by the operation's own schema (audited there), only decoded here
const opId = (what: string) => segment(`${what}; another user's id is not_found.`, 'Use the id as answered, unchanged.');
export const ResearchPath = group({ id: opId('res_ and 16 hex digits') });
export const TaskPath = group({ id: opId('task_ and 16 hex digits') });
export const TaskListQuery = group({ state: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...TASK_STATES] })) });
export const TaskGetQuery = group({ waitS: Type.Optional(hinted(Type.Integer({ minimum: 0, maximum: 60 }), { next: 'Pass ?waitS=30, or leave it out.' })) });

// ---- extractors and model steps on a tab
export const ExtractorPath = group({ id: segment("ext_ and 16 hex digits; another user's id is not_found.", 'Use the id POST /v1/extractors answered: ext_ and 16 hex digits.') });
export const ActTabPath = group({ id: segment("The tab id (t2, or <profile>%2Ft2); another user's tab is not_found.", 'Use a tab id such as t2 (browser_tabs lists them).') });

// ---- tabs, tools, files
export const TabPath = group({ id: segment(undefined, 'Percent-encode the name correctly.') });
export const HarTabPath = group({ id: segment(undefined, 'Percent-encode the tab id correctly.') });
export const ToolPath = group({ name: segment(undefined, 'Percent-encode the name correctly.') });
export const FilePath = group({ name: segment(undefined, 'Percent-encode the name correctly.') });

// ---- usage and audit
const day = (name: string, description: string) =>
  hinted(Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description }), { what: 'a day as YYYY-MM-DD', next: `Pass ${name}=2026-01-31, or leave it out.` });
export const UsageQuery = group({ from: Type.Optional(day('from', 'First day (YYYY-MM-DD, UTC), inclusive')), to: Type.Optional(day('to', 'Last day (YYYY-MM-DD, UTC), inclusive')) });
export const AuditQuery = group({
  limit: Type.Optional(hinted(limit(1, 500, undefined), { next: 'Pass ?limit=50.' })),
  cursor: Type.Optional(cursor('Pass the cursor from your previous page unchanged, or omit it for the newest entries.')),
});
export const AdminAuditQuery = group({ limit: Type.Optional(hinted(limit(1, 10000, undefined), { next: 'Pass ?limit=100.' })) });

// ---- vault: path parameters and the body of a PUT (values write-only: a refusal never quotes one)
export const MAX_VALUE_CHARS = 4096;
export const MAX_VAULT_URL_CHARS = 2048;
const VAULT_SHAPE_NEXT = 'Send {"loginUrl"?: "https://...", "fields": {"password": "..."}}, or {"kind": "otp_inbox", "imap": {"host", "port", "user", "password", "tls"}}, or {"kind": "otp_inbox", "sms": true}.';
const vaultName = hinted(Type.String({ pattern: VAULT_NAME.source, description: 'The site\'s host, e.g. github.com' }), {
  what: 'a vault entry name',
  next: 'Use the site\'s host, e.g. "github.com": letters, digits, ".", "-", "_" or ":", at most 200.',
});
const FIELD_NEXT = 'Use a name such as username, password, card, api_key or totp: a letter, then letters, digits, "_" or "-", at most 64.';
const vaultField = hinted(Type.String({ pattern: VAULT_FIELD.source }), { what: 'a field name', next: FIELD_NEXT });
export const VaultPath = group({ name: vaultName });
export const VaultFieldPath = group({ name: vaultName, field: vaultField });

const secret = (description: string) => hinted(Type.String({ minLength: 1, maxLength: MAX_VALUE_CHARS, description }), { next: 'Send the value itself as a JSON string of 1 to 4096 characters, nothing more.' });
const VaultLogin = Type.Object(
  {
    kind: Type.Optional(Type.Literal('login')),
    loginUrl: Type.Optional(hinted(Type.String({ maxLength: MAX_VAULT_URL_CHARS, description: 'The http(s) page where you sign in.' }), { next: 'Send the page where you sign in, e.g. "https://github.com/login".' })),
    fields: Type.Optional(
      hinted(Type.Record(Type.String({ pattern: VAULT_FIELD.source }), secret('A value to keep (write-only; a totp takes a base32 secret or an otpauth:// URI).'), { additionalProperties: false, maxProperties: 50, description: 'Field name to value; merged into what the entry holds (at most 50 fields in all).' }), { next: FIELD_NEXT }),
    ),
  },
  { additionalProperties: false, description: 'A login entry: fields are merged into what the entry holds; a totp value is a base32 secret or an otpauth://totp/ URI.' },
);
const VaultImap = Type.Object(
  {
    kind: Type.Literal('otp_inbox'),
    imap: Type.Object(
      {
        host: hinted(Type.String({ pattern: '^[A-Za-z0-9.:[\\]-]{1,253}$' }), { what: 'a host name or address', next: 'Send e.g. "imap.example.com".' }),
        port: hinted(Type.Integer({ minimum: 1, maximum: 65535 }), { next: 'Send 993 for IMAP over TLS, 143 otherwise.' }),
        user: hinted(Type.String({ minLength: 1, maxLength: 320 }), { next: 'Send the login of the mailbox, usually its address.' }),
        password: secret('The mailbox password (write-only).'),
        tls: Type.Optional(hinted(Type.Boolean({ default: true }), { next: 'Send true for IMAP over TLS (port 993).' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'An e-mail inbox that one-time codes arrive in.' },
);
const VaultSms = Type.Object(
  { kind: Type.Literal('otp_inbox'), sms: Type.Literal(true) },
  { additionalProperties: false, description: 'An SMS inbox for a forwarder app; the answer carries forwardUrl and secret, once. Putting it again replaces both.' },
);
export const VaultPutBody = hinted(Type.Union([VaultLogin, VaultImap, VaultSms]), { next: VAULT_SHAPE_NEXT });

// ---- admin
export const NewUserBody = hinted(Type.Object({
  name: hinted(Type.String({ pattern: USER_NAME.source, description: '1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit' }), {
    message: 'name must be 1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
    next: 'Pick a name such as "alice".',
  }),
}), { next: 'Send {"name": "alice"}.' });
