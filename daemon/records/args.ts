/**
 * What a step keeps of a call's arguments. Unlike the audit log (redactArgs), a step must keep what was typed,
 * or a replay could not type it again; what it must never keep is a vault value or a filled code. So it uses the
 * audit's own secret matching (scrubList, holdsSecret) and stores any string holding a secret as "[secret]",
 * keys included; a replay refuses such a step rather than type the placeholder.
 */
import { holdsSecret, scrubList, SECRET_ARG } from '../call/redact.js';
import type { ToolLookup } from '../call/define.js';

/** Arguments larger than this (a file's base64, a HAR) are not kept: the step says so and is not replayed. */
export const MAX_ARGS_BYTES = 64 * 1024;
export const ARGS_OMITTED = '[arguments too large to keep]';

/** The arguments that name elements by ref, as locator keys: ref, fromRef, toRef, and fields.<ref>. */
export function refArgs(args: Record<string, unknown>): { key: string; ref: string }[] {
  const out: { key: string; ref: string }[] = [];
  for (const k of ['ref', 'fromRef', 'toRef']) if (typeof args[k] === 'string') out.push({ key: k, ref: args[k] as string });
  const fields = args.fields;
  if (fields && typeof fields === 'object' && !Array.isArray(fields)) for (const ref of Object.keys(fields)) out.push({ key: `fields.${ref}`, ref });
  return out;
}

function withoutSecrets(v: unknown, forms: readonly string[], depth: number): unknown {
  if (typeof v === 'string') return holdsSecret(v, forms) ? SECRET_ARG : v;
  if (!v || typeof v !== 'object' || depth > 16) return v;
  if (Array.isArray(v)) return v.map((x) => withoutSecrets(x, forms, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [holdsSecret(k, forms) ? SECRET_ARG : k, withoutSecrets(x, forms, depth + 1)]));
}

/** The arguments to keep in a step: as called, secrets replaced, or a note when they are too large. */
export function stepArgs(args: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const forms = scrubList(secrets);
  const kept = forms.length ? (withoutSecrets(args, forms, 0) as Record<string, unknown>) : args;
  if (Buffer.byteLength(JSON.stringify(kept)) > MAX_ARGS_BYTES) return { omitted: ARGS_OMITTED };
  return kept;
}

/** True when a kept argument had a secret in it (such a step cannot be repeated as stored). */
export function hasSecretPlaceholder(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v === SECRET_ARG;
  if (!v || typeof v !== 'object' || depth > 16) return false;
  return Object.entries(v).some(([k, x]) => k === SECRET_ARG || hasSecretPlaceholder(x, depth + 1));
}

/** Whether a tool takes a `tab` argument: a replayed or scripted step is given the tab it runs in. */
export function takesTab(tool: ToolLookup, name: string): boolean {
  return !!(tool(name)?.input as { properties?: Record<string, unknown> } | undefined)?.properties?.tab;
}
