/**
 * `%vault:site.field%` in an act instruction: the user names a vault value without writing it. The model
 * sees the placeholder as written and passes it on as the value of the field it fills; the step is then run
 * as browser_fill_secret (site and field from the placeholder), so the value goes from the vault into the page
 * under that tool's rules (act tab, the entry's own site) and never reaches the model, a result or the cache.
 */
import { VAULT_FIELD, VAULT_NAME } from '../../storage/vault.js';
import { own } from '../../protocol/own.js';

/** site is everything up to the last dot (hosts have dots), field the rest. */
const WHOLE = /^%vault:(.+)\.([^.%]+)%$/;
const ANY = /%vault:/;

export interface VaultRef {
  site: string;
  field: string;
}

/** The placeholder when `value` is exactly one well-formed placeholder. */
export function parsePlaceholder(value: string): VaultRef | undefined {
  const m = WHOLE.exec(value.trim());
  if (!m || !VAULT_NAME.test(m[1]) || !VAULT_FIELD.test(m[2])) return undefined;
  return { site: m[1], field: m[2] };
}

export function mentionsVault(v: unknown): boolean {
  return ANY.test(JSON.stringify(v ?? null));
}

/** The argument that carries the value a fill tool puts into the page. */
const VALUE_ARG: Record<string, string> = { browser_fill: 'value', browser_type: 'text' };

/**
 * A model's call that fills a placeholder, as the browser_fill_secret call to run instead; undefined when the
 * call has no placeholder; a string saying what is wrong when it has one used in a way that cannot be filled
 * safely (inside other text, in a tool that takes no single value, without a field ref).
 */
export function secretCall(tool: string, args: Record<string, unknown>): { tool: 'browser_fill_secret'; args: Record<string, unknown>; dropped: string[] } | string | undefined {
  if (!mentionsVault(args)) return undefined;
  const valueArg = own(VALUE_ARG, tool);
  const value = valueArg ? args[valueArg] : undefined;
  const ref = parsePlaceholder(typeof value === 'string' ? value : '');
  const rest = { ...args };
  if (valueArg) delete rest[valueArg];
  if (!valueArg || !ref || mentionsVault(rest)) {
    return 'a %vault:site.field% placeholder must be the whole value of browser_fill (value) or browser_type (text), exactly as the action wrote it';
  }
  if (typeof args.ref !== 'string') return 'a vault value is filled into one field: give its ref';
  // What browser_type would have done beyond setting the value; a secret fill sets the value only.
  const dropped = tool === 'browser_type' ? (['clear', 'submit', 'slowly'] as const).filter((k) => args[k]) : [];
  return { tool: 'browser_fill_secret', args: { ref: args.ref, site: ref.site, field: ref.field }, dropped };
}
