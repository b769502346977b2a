/** Looking up the login entry a tool names, with errors that say what exists instead. */
import type { ToolContext } from '../call/context.js';
import type { VaultEntryInfo, VaultSecrets } from '../../storage/vault.js';
import { BrowserdError } from '../../protocol/errors.js';

export interface LoginEntry {
  info: VaultEntryInfo;
  secrets: VaultSecrets;
}

export function loginEntry(ctx: ToolContext, site: string): LoginEntry {
  const vault = ctx.env.vault;
  vault.requireOpen();
  const info = vault.info(ctx.user.id, site);
  if (!info) {
    const names = vault.list(ctx.user.id).filter((e) => e.kind === 'login').map((e) => e.name);
    throw new BrowserdError('not_found', `no vault entry ${site}`, {
      next: names.length ? `Your login entries: ${names.join(', ')}. Ask the user to add ${site} if it is missing.` : 'The vault has no login entries: ask the user to add one (browserd vault set SITE FIELD).',
    });
  }
  if (info.kind !== 'login') throw new BrowserdError('validation_error', `vault entry ${site} is an ${info.kind}, not a login`, { next: 'Name a login entry (browser_vault_list).' });
  const secrets = vault.secrets(ctx.user.id, site)!;
  return { info, secrets };
}

/** A field's value; not_found names the fields the entry has. */
export function fieldValue(entry: LoginEntry, field: string): string {
  const v = Object.hasOwn(entry.secrets.fields, field) ? entry.secrets.fields[field] : undefined;
  if (v === undefined || v === '') {
    throw new BrowserdError('not_found', `vault entry ${entry.info.name} has no field ${field}`, {
      next: `Its fields are: ${entry.info.fields.join(', ') || '(none)'}.`,
    });
  }
  return v;
}
