/**
 * Every HAR recording of a daemon, by user and tab: at most one per tab, its file at
 * <data>/har/<user>/<tab>.jsonl (owner-only). A recording goes with its tab: when the tab record is removed
 * (closed by a tool, by REST, with its context), the file is deleted and the recording forgotten.
 *
 * Recordings live in memory: a daemon restart ends them, so the files a previous run left are removed when the
 * first recording of this run is made.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DaemonEnv } from '../env.js';
import type { Tab } from '../browser/tab.js';
import { privateDir } from '../../storage/private-fs.js';
import { userSecretForms } from '../vault/user-secrets.js';
import { scrubList } from '../tools/redact.js';
import { trafficRedactor } from './redact.js';
import { HarRecording, type HarOptions } from './har-recording.js';

/** One set per daemon (a test runs several daemons in one process): keyed by the daemon's env, not global. */
const perDaemon = new WeakMap<DaemonEnv, HarRecordings>();

export function harRecordings(env: DaemonEnv): HarRecordings {
  let r = perDaemon.get(env);
  if (!r) {
    r = new HarRecordings(env);
    perDaemon.set(env, r);
  }
  return r;
}

const key = (user: string, tab: string) => `${user}\u0000${tab}`;
/** A tab id (`t3`, `work/t3`) or user id as one file-name-safe path segment. */
const segment = (s: string) => encodeURIComponent(s).replace(/\./g, '%2E');

export class HarRecordings {
  private byTab = new Map<string, HarRecording>();
  private dir: string;

  constructor(private env: DaemonEnv) {
    this.dir = join(env.cfg.dataDir, 'har');
    rmSync(this.dir, { recursive: true, force: true });
    privateDir(this.dir);
    env.tabs.onRemoved((user, tab) => void this.forget(user, tab));
    // A tab reopened after its browser crashed or was restarted is a new object under the same id: follow it.
    env.pool.events.on('tab', (user: string, tab: Tab) => {
      const rec = this.byTab.get(key(user, tab.id));
      if (rec && rec.state === 'recording') rec.follow(tab);
    });
  }

  /** The tab's recording, if it has one and the tab is still open (a tab closed meanwhile takes it along). */
  get(user: string, tab: string): HarRecording | undefined {
    const rec = this.byTab.get(key(user, tab));
    if (rec && !this.env.tabs.get(user, tab)) {
      void this.forget(user, tab);
      return undefined;
    }
    return rec;
  }

  /** Starts a new recording for a tab, replacing a stopped or deleted one (its file emptied). */
  async start(user: string, tab: Tab, options: HarOptions): Promise<HarRecording> {
    const old = this.byTab.get(key(user, tab.id));
    if (old && old.state !== 'deleted') await old.delete();
    const file = join(privateDir(join(this.dir, segment(user))), `${segment(tab.id)}.jsonl`);
    const rec = await HarRecording.start(tab, file, options, () => trafficRedactor(this.secretForms(user)));
    this.byTab.set(key(user, tab.id), rec);
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

  private async forget(user: string, tab: string) {
    const rec = this.byTab.get(key(user, tab));
    if (!rec) return;
    this.byTab.delete(key(user, tab));
    await rec.delete();
  }
}
