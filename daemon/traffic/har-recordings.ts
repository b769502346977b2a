/**
 * Every HAR recording of a daemon, by user and tab: at most one per tab, its file at
 * <data>/har/<user>/<tab>.jsonl (owner-only). A recording goes with its tab: when the tab record is removed
 * (closed by a tool, by REST, with its context), the file is deleted and the recording forgotten.
 *
 * Recordings live in memory: a daemon restart ends them, so the files a previous run left are removed when the
 * first recording of this run is made. The files count toward their user's storage quota: a start with no room
 * left is refused, and a recording stops where its next entries would pass the quota (har-recording.ts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Platform } from '../platform.js';
import type { Tab } from '../browser/tab.js';
import { privateDir } from '../../storage/private-fs.js';
import { userSecretForms } from '../secrets/user-secrets.js';
import { scrubList } from '../call/redact.js';
import { trafficRedactor } from './redact.js';
import { HarRecording, type HarOptions } from './har-recording.js';
import { TabScoped } from './tab-scoped.js';
import { quotaError } from '../quotas/limits.js';

/** One set per daemon (a test runs several daemons in one process): keyed by the daemon's env, not global. */
const perDaemon = new WeakMap<Platform, HarRecordings>();

export function harRecordings(env: Platform): HarRecordings {
  let r = perDaemon.get(env);
  if (!r) {
    r = new HarRecordings(env);
    perDaemon.set(env, r);
  }
  return r;
}

/** A tab id (`t3`, `work/t3`) or user id as one file-name-safe path segment. */
const segment = (s: string) => encodeURIComponent(s).replace(/\./g, '%2E');

export class HarRecordings {
  private recordings: TabScoped<HarRecording>;
  private dir: string;

  constructor(private env: Platform) {
    this.dir = join(env.cfg.dataDir, 'har');
    rmSync(this.dir, { recursive: true, force: true });
    privateDir(this.dir);
    this.recordings = new TabScoped(env);
  }

  /** The tab's recording, if it has one and the tab is still open (a tab closed meanwhile takes it along). */
  get(user: string, tab: string): HarRecording | undefined {
    return this.recordings.get(user, tab);
  }

  /** Starts a new recording for a tab, replacing a stopped or deleted one (its file emptied). */
  async start(user: string, tab: Tab, options: HarOptions): Promise<HarRecording> {
    const old = this.recordings.get(user, tab.id);
    // Each recording keeps a file until its tab closes: a cap on how many, the one replaced here not counted.
    const limit = this.env.cfg.quotas.harRecordings;
    const kept = this.recordings.ofUser(user).filter((r) => r !== old && r.state !== 'deleted').length;
    if (kept >= limit) throw quotaError('harRecordings', kept, limit, 'Delete a HAR recording you no longer need (browser_har action "delete", or close its tab), then start again.');
    // A user already at their storage quota has no room for a single entry (the file replaced here not counted).
    const replaced = old && old.state !== 'deleted' ? old.file : undefined;
    this.env.storageQuota.check(user, 1, replaced);
    // The old recording's file is the new one's path: it goes before the new one creates it.
    if (old && old.state !== 'deleted') await old.delete();
    const file = join(privateDir(join(this.dir, segment(user))), `${segment(tab.id)}.jsonl`);
    // The file counts toward the user's storage quota as it grows: the recording stops where it would pass it.
    const rec = await HarRecording.start(tab, file, options, () => trafficRedactor(this.secretForms(user)), { room: () => this.env.storageQuota.room(user) });
    await this.recordings.set(user, tab.id, rec);
    return rec;
  }

  /** The user's secrets now; a vault that cannot be read filled nothing, so its codes alone are hidden then. */
  private secretForms(user: string): string[] {
    try {
      return userSecretForms(this.env, user);
    } catch {
      return scrubList(this.env.filledCodes.list(user));
    }
  }
}
