/**
 * The daemon's platform: configuration, storage, browsers, the vault, the guard and the services every feature
 * may use. The features built on the call pipeline (crawls, tasks, records, monitors) are not in it: main.ts
 * builds them after the pipeline and hands each what it declares it needs, so nothing here depends on them.
 */
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from '../storage/db.js';
import type { UserStore } from '../storage/users.js';
import type { TabStore } from '../storage/tabs.js';
import type { AuditStore } from '../storage/audit.js';
import type { BrowserPool } from './browser/pool.js';
import type { FileStore } from '../storage/files.js';
import type { StorageQuota } from './quotas/storage.js';
import type { ProfileStore } from '../storage/profiles.js';
import type { HostPolicies } from './policy/host-policies.js';
import type { VaultStore } from '../storage/vault.js';
import type { FilledCodes } from '../storage/filled-codes.js';
import type { SavedSessionStore } from '../storage/saved-sessions.js';
import type { SmsInboxStore } from '../storage/sms-inbox.js';
import type { SearchBackend } from './search/backends.js';
import type { LiveLinks } from './live/links.js';
import type { CdpSessions } from './cdp-proxy/sessions.js';
import type { UsageStore } from '../storage/usage.js';
import type { ResponseCacheStore } from '../storage/response-cache.js';
import type { SiteMemoryStore } from '../storage/site-memory.js';
import type { ModelUsageStore } from '../storage/model-usage.js';
import type { ResearchStore } from '../storage/research.js';
import type { ExtractorStore } from '../storage/extractors.js';
import type { ActionCacheStore } from '../storage/action-cache.js';
import type { WebhookReceivers, Webhooks } from '../protocol/webhook-events.js';
import type { BrowserSettingsService } from './settings/service.js';
import type { IdentityService } from './identity/service.js';
import type { AdBlocker } from './adblock/service.js';
import type { AgentStorageStore } from '../storage/agent-storage.js';

export interface Platform {
  cfg: Config;
  db: Db;
  users: UserStore;
  tabs: TabStore;
  audit: AuditStore;
  pool: BrowserPool;
  files: FileStore;
  /** Each user's stored bytes against --max-storage-mb-per-user (files, downloads, uploads, HAR files, caches). */
  storageQuota: StorageQuota;
  profiles: ProfileStore;
  policies: HostPolicies;
  /** Sealed secrets; locked (every use a clear error) when the vault key is missing or wrong. */
  vault: VaultStore;
  /** Which sites' own storage (service workers, Cache Storage) agent code may have written, per browser and context. */
  agentStorage: AgentStorageStore;
  /** Codes the daemon filled lately, per user: scrubbed from results like vault values. */
  filledCodes: FilledCodes;
  /** Saved signed-in sessions (cookies and local storage), sealed with the vault key. */
  savedSessions: SavedSessionStore;
  /** Text messages forwarded into SMS otp_inbox entries, sealed, kept minutes. */
  smsInbox: SmsInboxStore;
  /** The web search backend (from the environment at start; tests set a loopback one). */
  search?: SearchBackend;
  /** Live-view links (in memory: a restart ends them) and their connected viewers. */
  live: LiveLinks;
  /** Timed raw-CDP sessions to users' browsers (browser_sessions, /cdp/<token>). */
  cdpSessions: CdpSessions;
  /** Metered usage (CDP session minutes). */
  usage: UsageStore;
  /** Stored GET/HEAD responses per user and cache name (record/replay). */
  responseCache: ResponseCacheStore;
  /** Remembered site maps (browser_explore) and notes (browser_remember). */
  siteMemory: SiteMemoryStore;
  /** Model tokens used, per user, model and day, as the providers reported them. */
  modelUsage: ModelUsageStore;
  /** Research answers (POST /v1/research), per user. */
  research: ResearchStore;
  /** Learned extractors (per-field selectors proven on a page), per user. */
  extractors: ExtractorStore;
  /** Remembered act steps (action, host, page structure -> tool calls), per user. */
  actionCache: ActionCacheStore;
  /** Signed callbacks: emit queues an event durably for the user's receivers; delivery retries for 24 h. */
  webhooks: Webhooks;
  /** Webhook receivers for the REST routes: register (secret shown once), list, delete, deliveries. */
  webhookReceivers: WebhookReceivers;
  /** Host-wide browser settings (identity, ad blocking, max browsers, sign-up): one validation, stored in LMDB. */
  /** Each user's persistent identity: drawn once, stored, merged with the admin's profile overrides. */
  identities: IdentityService;
  browserSettings: BrowserSettingsService;
  /** block_ads' filter engine: its state (off, loading, ready, unavailable and why) and the verdict on a request. */
  adblock: AdBlocker;
  log: Logger;
  /** Ports pages may never reach: the daemon's own (browsers have no CDP port). */
  deniedPorts(): Set<number>;
  /** Absolute base of links we hand out, without a trailing slash: the public URL, else where the daemon listens. */
  baseUrl(): string;
  startedAt: Date;
}
