/**
 * The one check of a new user's name, shared by every way a user is made over HTTP (POST /v1/admin/users, the
 * admin console, sign-up on the home page), so none of them accepts a name another refuses.
 */
import type { Platform } from '../platform.js';
import { BrowserdError } from '../../protocol/errors.js';
import { USER_NAME } from '../../protocol/ids.js';

/** The form of a name alone (says nothing about which names exist). */
export function assertUserName(name: unknown): string {
  if (typeof name !== 'string' || !USER_NAME.test(name)) {
    throw new BrowserdError('validation_error', 'name must be 1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit', { next: 'Pick a name such as "alice".' });
  }
  return name;
}

/** A well-formed name no user has yet. */
export function assertNewUserName(env: Platform, name: unknown): string {
  const checked = assertUserName(name);
  if (env.users.get(checked)) throw new BrowserdError('validation_error', `user ${checked} exists`, { next: 'Pick another name.' });
  return checked;
}
