/**
 * Per-user quotas: how much of the host one user's crawls, tasks, monitors, recordings, HAR recordings and
 * stored bytes may hold, so one user (or a hostile agent with their token) cannot take what the others need.
 * One table: each limit's flag, environment variable, default and what it counts; config.ts reads it, `browserd
 * serve --help` and GET /v1/me show it, and a refusal names the limit and its flag.
 */
import { BrowserdError } from '../../protocol/errors.js';

export interface QuotaSpec {
  /** The `browserd serve` flag, without its dashes. */
  flag: string;
  env: string;
  default: number;
  /** What one unit counts, for the refusal ("crawls running or paused"). */
  counts: string;
  /** The value is MB in flags and environment, bytes in Config. */
  megabytes?: boolean;
}

export const QUOTAS = {
  crawls: { flag: 'max-crawls-per-user', env: 'BROWSERD_MAX_CRAWLS_PER_USER', default: 4, counts: 'crawls running or paused' },
  tasks: { flag: 'max-tasks-per-user', env: 'BROWSERD_MAX_TASKS_PER_USER', default: 20, counts: 'tasks queued, running or paused' },
  monitors: { flag: 'max-monitors-per-user', env: 'BROWSERD_MAX_MONITORS_PER_USER', default: 100, counts: 'monitors' },
  recordings: { flag: 'max-recordings-per-user', env: 'BROWSERD_MAX_RECORDINGS_PER_USER', default: 200, counts: 'stored browser_record recordings' },
  harRecordings: { flag: 'max-har-recordings-per-user', env: 'BROWSERD_MAX_HAR_RECORDINGS_PER_USER', default: 10, counts: 'HAR recordings (each with its file) on open tabs' },
  storageBytes: { flag: 'max-storage-mb-per-user', env: 'BROWSERD_MAX_STORAGE_MB_PER_USER', default: 4096, counts: 'bytes stored (files, downloads, uploads, HAR files, response caches, recordings, monitors, tasks, crawls)', megabytes: true },
} as const satisfies Record<string, QuotaSpec>;

export type QuotaName = keyof typeof QUOTAS;
export type QuotaLimits = Record<QuotaName, number>;

const MB = 1024 * 1024;

/**
 * The largest whole number a setting takes: 2^31 - 1, the longest timer Node keeps in ms, 68 years in seconds,
 * 2 PB in MB. Past it a value is a typo (or an overflow waiting in a timer or a date), not a wish.
 */
export const MAX_WHOLE_SETTING = 2 ** 31 - 1;

/** A whole number as an operator writes it: decimal digits only (no sign, spaces, 1e3, 0x10 or 1.0). */
export const WHOLE_TEXT = /^[0-9]+$/;

/** Each quota from its flag, else its environment variable, else its default; anything but a whole number >= 1 stops the start. */
export function loadQuotaLimits(flags: Partial<Record<string, string | boolean>>, env: NodeJS.ProcessEnv): QuotaLimits {
  const out = {} as QuotaLimits;
  for (const [name, q] of Object.entries(QUOTAS) as [QuotaName, QuotaSpec][]) {
    const raw = flags[q.flag] ?? env[q.env];
    let n: number = q.default;
    if (raw !== undefined) {
      n = Number(raw);
      if (typeof raw !== 'string' || !WHOLE_TEXT.test(raw) || n < 1 || n > MAX_WHOLE_SETTING) throw new Error(`--${q.flag} (${q.env}) takes a whole number >= 1 and <= ${MAX_WHOLE_SETTING}, not "${raw}"`);
    }
    out[name] = q.megabytes ? n * MB : n;
  }
  return out;
}

/** The limits as GET /v1/me shows them: counts as numbers, bytes as bytes. */
export function quotaView(limits: QuotaLimits): Record<string, number> {
  return {
    crawlsPerUser: limits.crawls,
    tasksPerUser: limits.tasks,
    monitorsPerUser: limits.monitors,
    recordingsPerUser: limits.recordings,
    harRecordingsPerUser: limits.harRecordings,
    storageBytesPerUser: limits.storageBytes,
  };
}

/** Bytes for a person: MB to one decimal, or KB and bytes below a tenth of a MB (a refused 1-byte start is not "0 MB"). */
const mb = (bytes: number) => (bytes >= MB / 10 ? `${Math.round((bytes / MB) * 10) / 10} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`);

/**
 * The refusal when a quota is reached: `refused`, naming the limit, its flag and the numbers, with what the
 * caller can do. Thrown before anything is created or stored, so a refusal leaves nothing behind.
 */
export function quotaError(name: QuotaName, used: number, limit: number, next: string, adding?: number): BrowserdError {
  const q: QuotaSpec = QUOTAS[name];
  const message = q.megabytes
    ? `storing ${mb(adding ?? 0)} more would pass your storage quota: you store ${mb(used)} of ${mb(limit)} (${q.counts}; limit --${q.flag})`
    : `you already have ${used} ${q.counts}, the most one user may (limit --${q.flag} = ${limit})`;
  return new BrowserdError('refused', message, {
    next: `${next} An admin can raise --${q.flag}.`,
    details: { quota: name, flag: `--${q.flag}`, limit, used, ...(adding !== undefined ? { adding } : {}) },
  });
}

/** Whether `e` is the refusal of quota `name` (a background writer stops on it rather than failing). */
export function isQuotaRefusal(e: unknown, name: QuotaName): boolean {
  const r = e as { code?: string; details?: { quota?: string } } | undefined;
  return r?.code === 'refused' && r.details?.quota === name;
}

/**
 * Creations under way per user, counted with what is stored: a check and the store it guards are an `await`
 * apart, so two requests at once would both see room for one.
 */
export class PendingCount {
  private n = new Map<string, number>();

  of(user: string): number {
    return this.n.get(user) ?? 0;
  }

  /** Counts one creation for the user until the returned function is called. */
  hold(user: string): () => void {
    this.n.set(user, this.of(user) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = this.of(user) - 1;
      if (left > 0) this.n.set(user, left);
      else this.n.delete(user);
    };
  }
}
