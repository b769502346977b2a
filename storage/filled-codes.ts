/**
 * One-time codes the daemon filled for a user (TOTP, e-mail and SMS codes), remembered for a while so the
 * response builder can scrub them from any later result, like vault values. Kept in memory only: a code is
 * worthless once it expires, and a restart ends every call that could have echoed it.
 */

/** Longer than any code stays valid (TOTP 30 s windows, e-mailed codes ~10-15 minutes). */
const KEEP_MS = 30 * 60 * 1000;
const MAX_PER_USER = 50;

export class FilledCodes {
  private byUser = new Map<string, { code: string; at: number }[]>();

  remember(user: string, code: string, now = Date.now()) {
    const list = (this.byUser.get(user) ?? []).filter((c) => now - c.at < KEEP_MS && c.code !== code);
    list.push({ code, at: now });
    this.byUser.set(user, list.slice(-MAX_PER_USER));
  }

  list(user: string, now = Date.now()): string[] {
    const list = (this.byUser.get(user) ?? []).filter((c) => now - c.at < KEEP_MS);
    if (list.length) this.byUser.set(user, list);
    else this.byUser.delete(user);
    return list.map((c) => c.code);
  }
}
