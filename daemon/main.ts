/**
 * Starting and stopping a daemon: storage, egress guard, browser pool, HTTP. Used by `browserd serve` and by
 * tests (several daemons can run in one process: nothing here is global).
 */
import pino, { type Logger } from 'pino';
import { join } from 'node:path';
import { privateDir } from '../storage/private-fs.js';
import { openDb } from '../storage/db.js';
import { UserStore } from '../storage/users.js';
import { TabStore } from '../storage/tabs.js';
import { AuditStore } from '../storage/audit.js';
import { FileStore } from '../storage/files.js';
import { StorageQuota } from './quotas/storage.js';
import { ProfileStore } from '../storage/profiles.js';
import { HostPolicies } from './policy/host-policies.js';
import { requestInterception } from './settings/request-interception.js';
import { VaultStore } from '../storage/vault.js';
import { loadVaultKey } from '../storage/vault-key.js';
import { FilledCodes } from '../storage/filled-codes.js';
import { AgentStorageStore } from '../storage/agent-storage.js';
import { markWrittenEverywhere } from './secrets/site-storage.js';
import { SavedSessionStore } from '../storage/saved-sessions.js';
import { SmsInboxStore } from '../storage/sms-inbox.js';
import { HandoffStore } from '../storage/handoffs.js';
import { HANDOFFS, HandoffService } from './handoff/service.js';
import { evaluateHostPolicy } from './policy/host-policy.js';
import { backendFromEnv } from './search/backends.js';
import { BrowserPool } from './browser/pool.js';
import { BrowserSettingsService } from './settings/service.js';
import { BrowserSettingsStore } from '../storage/browser-settings.js';
import { IdentityService } from './identity/service.js';
import { IdentityStore } from '../storage/identities.js';
import { AdBlocker } from './adblock/service.js';
import { LiveLinks } from './live/links.js';
import { startApp, type AppHandle } from './server/app.js';
import { startEgressProxy } from './net/egress-proxy.js';
import { ownBrowsersOnly } from './net/peer-process.js';
import { lookupWithRules, parseResolverRules } from './browser/resolver-rules.js';
import type { Config } from './config.js';
import type { Platform } from './platform.js';
import { closeMarkdownThreads } from './read/index.js';
import { closeConverterThreads } from './docs/pool.js';
import { scrubbingLogger } from './log-scrub.js';
import { callSecrets, everyUsersSecrets } from './secrets/user-secrets.js';
import { callTool, type Pipeline } from './tools/dispatch.js';
import { Services } from './call/services.js';
import { ToolRegistry } from './call/registry.js';
import { ACT_TOOLS } from './model-features/act-tools.js';
import { allRoutes, operationsOf, toolsOf, type Feature } from './server/feature.js';
import { browserFeature } from './tools/feature.js';
import { trafficFeature } from './traffic/feature.js';
import { handoffFeature } from './handoff/feature.js';
import { liveFeature } from './viewer/feature.js';
import { docsFeature } from './docs/feature.js';
import { monitorFeature } from './monitors/feature.js';
import { recordFeature } from './records/feature.js';
import { taskFeature } from './tasks/feature.js';
import { modelFeature } from './model-features/feature.js';
import { vaultFeature } from './vault/feature.js';
import { cacheFeature } from './cache/feature.js';
import { crawlFeature } from './crawl/feature.js';
import { webhookFeature } from './webhooks/feature.js';
import { UsageStore } from '../storage/usage.js';
import { CdpSessions } from './cdp-proxy/sessions.js';
import { CRAWLS, CrawlService } from './crawl/service.js';
import { ResponseCacheStore } from '../storage/response-cache.js';
import { SiteMemoryStore } from '../storage/site-memory.js';
import { ModelUsageStore } from '../storage/model-usage.js';
import { ExtractorStore } from '../storage/extractors.js';
import { ActionCacheStore } from '../storage/action-cache.js';
import { checkModelConfig } from './models/catalog.js';
import { ResearchStore } from '../storage/research.js';
import { TASKS, TaskService } from './tasks/service.js';
import { WebhookStore } from '../storage/webhooks.js';
import { WebhookService } from './webhooks/service.js';
import { handoffEventData, downloadEventData } from './webhooks/sources.js';
import { RECORDS, Records } from './records/index.js';
import { MONITORS, MonitorService } from './monitors/service.js';
import { fleetHostFeature } from './fleet/feature.js';
import { DisabledAccounts } from './accounts/disabled.js';

export { VERSION } from './version.js';
import { VERSION } from './version.js';
import { runningBundled } from './threads.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { checkLoginEntryWrite } from './secrets/site-match.js';

/**
 * Every feature this daemon serves, in the order their tools are listed and their routes documented. A new
 * feature returns its tools and routes from its own feature.ts (server/feature.ts says what) and is added here.
 */
export const FEATURES: readonly Feature[] = [browserFeature, crawlFeature, webhookFeature, cacheFeature, vaultFeature, modelFeature((name) => TOOLS.get(name)), taskFeature, recordFeature, monitorFeature, docsFeature, trafficFeature, handoffFeature, liveFeature, fleetHostFeature];

/** The tools and operations of those features: the registry dispatch looks calls up in and tools/list shows. */
export const TOOLS = new ToolRegistry(toolsOf(FEATURES), operationsOf(FEATURES));

// Act offers its model other features' interaction tools, found by name: a missing one is a wiring mistake,
// said when the daemon loads rather than at a user's first act.
const actToolsMissing = ACT_TOOLS.filter((name) => !TOOLS.get(name));
if (actToolsMissing.length) throw new Error(`act offers tools no feature provides: ${actToolsMissing.join(', ')}`);

/** Every HTTP route this daemon serves (the server's own and the features'): what api/openapi.yaml documents. */
export const ROUTES = allRoutes(FEATURES);

/** The services built on the call pipeline, as main.ts wired them (tests and benches reach them here). */
export interface Features {
  handoffs: HandoffService;
  crawls: CrawlService;
  tasks: TaskService;
  records: Records;
  monitors: MonitorService;
}

export interface Daemon {
  /** The platform every feature shares. */
  env: Platform;
  /** The call pipeline: dispatch.ts callTool(pipeline, ...) is one tool call, as MCP and REST make them. */
  pipeline: Pipeline;
  features: Features;
  app: AppHandle;
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startDaemon(cfg: Config, log: Logger = pino({ level: process.env.BROWSERD_LOG_LEVEL ?? 'info' })): Promise<Daemon> {
  // First of all: a second daemon on this store must not open it, start its browsers or resume its work.
  const lock = await lockDataDir(cfg.dataDir);
  try {
    return await startHoldingDataDir(cfg, log, lock);
  } catch (e) {
    await lock.release();
    throw e;
  }
}

async function startHoldingDataDir(cfg: Config, log: Logger, lock: DataDirLock): Promise<Daemon> {
  // No line this daemon logs carries a user's vault value or filled code; the source is set once the stores exist.
  let logSecrets: () => readonly string[] = () => [];
  log = scrubbingLogger(log, () => logSecrets());
  checkModelConfig(cfg.models);
  const db = openDb(cfg.dataDir);
  // Chromium makes the per-user profile dirs below this one; a private parent keeps every profile private.
  privateDir(join(cfg.dataDir, 'profiles'));
  privateDir(join(cfg.dataDir, 'uploads'));
  const users = new UserStore(db);
  await users.ensureRoutingKeys();
  const tabs = new TabStore(db);
  const audit = new AuditStore(db);
  let appPort = 0;
  let pool!: BrowserPool;
  // Browsers have no CDP port (they speak CDP over a pipe), so the daemon's own port is the one to protect.
  const deniedPorts = () => new Set([appPort].filter(Boolean));
  const proxy = await startEgressProxy({
    allowPrivateNetwork: cfg.allowPrivateNetwork,
    allowTargets: new Set(cfg.allowTargets),
    deniedPorts,
    lookup: lookupWithRules(parseResolverRules(cfg.chromeArgs)),
    // Any local process can reach a loopback port; only Chromium processes this daemon started may use it.
    admit: ownBrowsersOnly(),
    // Named by user (and profile): an operator reading refusals wants to know whose pages asked.
    onBlocked: (info) => log.info({ ...info, ...(info.browserPid !== undefined ? pool?.ownerOfPid(info.browserPid) : {}) }, 'egress blocked'),
  });
  const policies = new HostPolicies(db, (e) => log.error({ err: String(e) }, 'host rules not applied to open tabs'));
  const vaultKey = loadVaultKey(db, cfg.dataDir);
  // A key problem locks the vault, not the daemon: everything else keeps working and every vault use says why.
  if (!vaultKey.ok) log.error({ problem: vaultKey.problem, next: vaultKey.next }, `vault locked: ${vaultKey.message}`);
  const vault = new VaultStore(db, vaultKey, checkLoginEntryWrite);
  const files = new FileStore(cfg.dataDir);
  const agentStorage = new AgentStorageStore(db);
  // --max-browsers is the default; an admin's max_browsers setting, once set, wins and takes effect at once.
  const browserSettings = new BrowserSettingsService(new BrowserSettingsStore(db), cfg.maxBrowsers);
  const identities = new IdentityService(new IdentityStore(db), browserSettings);
  pool = new BrowserPool(cfg, tabs, log, () => proxy.port, (user, url) => evaluateHostPolicy(policies.rules(user), url), files, identities);
  // Every link the daemon hands out (live view, hand-offs, CDP sessions) starts here, without a trailing slash.
  const baseUrl = () => cfg.publicUrl?.replace(/\/+$/, '') ?? `http://${cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host}:${appPort || cfg.port}`;
  // Receivers get the egress guard's address rules (no host policy: they are the user's own endpoints).
  const webhooks = new WebhookService({
    store: new WebhookStore(db, () => vault.keySealer()),
    guard: { allowPrivateNetwork: cfg.allowPrivateNetwork, allowTargets: cfg.allowTargets, deniedPorts, lookup: lookupWithRules(parseResolverRules(cfg.chromeArgs)) },
    log,
    version: VERSION,
    // A disabled account's deliveries wait (kept, not sent) until it is enabled again.
    account: (user) => {
      const u = users.get(user);
      // Held for a move: deliveries wait too, and go out from the new host, which receives the outbox with the user.
      return !u ? 'gone' : u.disabled || u.moving ? 'disabled' : 'active';
    },
  });
  const handoffs = new HandoffService(new HandoffStore(db), {
    maxLifeS: cfg.handoffMaxS,
    baseUrl,
    hasTab: (u, t) => !!tabs.get(u, t),
    log,
    onFinished: (rec) => webhooks.emit(rec.user, 'handoff.finished', handoffEventData(rec)),
  });
  pool.setHostMax(browserSettings.current().max_browsers);
  browserSettings.onChange((s) => pool.setHostMax(s.max_browsers));
  // block_ads: the engine loads off the request path when a site is listed; requests pass until it is ready.
  const adblock = new AdBlocker({ dataDir: cfg.dataDir, lists: cfg.filterLists, log, settings: browserSettings });
  pool.adFilter = (req) => adblock.blocks(req);
  // An act tab holds for a verdict only the requests some rule could refuse or change (write-guard.ts).
  pool.requestInterception = (user) => requestInterception(browserSettings.current(), policies.rules(user));
  browserSettings.onChange(() => pool.requestRulesChanged());
  policies.onChange = () => pool.requestRulesChanged();
  adblock.start();
  pool.events.on('download', (user: string, outcome) => {
    webhooks.emit(user, 'download.finished', downloadEventData(outcome)).catch((e) => log.error({ err: String(e) }, 'download.finished event failed'));
  });
  // One field a line: each service added later is one line here.
  const env: Platform = {
    cfg,
    db,
    users,
    tabs,
    audit,
    pool,
    files,
    storageQuota: new StorageQuota({ dataDir: cfg.dataDir, limit: cfg.quotas.storageBytes, cacheBytes: (user) => env.responseCache.usedBytes(user), storeBytes: (user) => db.userBytes.byKind(user) }),
    profiles: new ProfileStore(cfg.dataDir),
    policies,
    vault,
    agentStorage,
    filledCodes: new FilledCodes(),
    savedSessions: new SavedSessionStore(db, () => vault.keySealer()),
    smsInbox: new SmsInboxStore(db, vaultKey),
    live: new LiveLinks(baseUrl, undefined, (user) => users.routingKey(user)),
    search: backendFromEnv(),
    ...cdpServices(db, log, cfg, baseUrl, (user) => users.routingKey(user)),
    responseCache: new ResponseCacheStore(db, cfg.dataDir, { maxBytesPerUser: cfg.cacheMaxBytesPerUser }),
    siteMemory: new SiteMemoryStore(db),
    modelUsage: new ModelUsageStore(db),
    research: new ResearchStore(db),
    extractors: new ExtractorStore(db),
    actionCache: new ActionCacheStore(db),
    webhooks,
    webhookReceivers: webhooks,
    browserSettings,
    identities,
    adblock,
    log,
    deniedPorts,
    baseUrl,
    startedAt: new Date(),
  };
  // The call pipeline, then the features built on it, in that order: each is handed what it needs. Features run
  // tools through pipeline.callTool and hook into every call here, so the pipeline imports none of them.
  const services = new Services();
  const pipeline: Pipeline = {
    env,
    services,
    registry: TOOLS,
    callTool: (user, name, args, opts) => callTool(pipeline, user, name, args, opts),
    hooks: {
      stepStarting: (ctx, tool, args) => features.records.recorder.stepStarting(ctx, tool, args),
      secretsOf: (user) => callSecrets(env, user),
    },
  };
  const features: Features = {
    handoffs,
    crawls: new CrawlService(() => env),
    tasks: new TaskService({ env, callTool: pipeline.callTool, tools: TOOLS.tools, handoffs }),
    records: new Records(db, { env, callTool: pipeline.callTool, tool: (name) => TOOLS.get(name) }),
    monitors: new MonitorService(db, () => env),
  };
  services.provide(HANDOFFS, handoffs).provide(CRAWLS, features.crawls).provide(TASKS, features.tasks).provide(RECORDS, features.records).provide(MONITORS, features.monitors);
  const accounts = new DisabledAccounts({ env, tasks: features.tasks });
  // Every store into a user's files (downloads, conversions, exports, videos, PDFs) first asks their quota.
  files.guard = (user, bytes, staged) => env.storageQuota.check(user, bytes, staged);
  // So does every store write that grows a user's rows (steps, checks, task conversations, crawl pages).
  db.userBytes.guard = (user, bytes) => env.storageQuota.check(user, bytes);
  // Raw CDP could have written any site's storage: every site of that browser counts as written until cleaned.
  env.cdpSessions.onUsedEnd = (user, profile, at) => markWrittenEverywhere(agentStorage, user, profile, at).catch((e) => log.error({ err: String(e) }, 'agent storage marks not saved'));
  pool.storageRoom = (user) => env.storageQuota.room(user);
  // The host's model keys are secrets like vault values: no log line may carry one.
  const hostModelKeys = [cfg.models.openaiKey, cfg.models.anthropicKey, cfg.models.geminiKey].filter((k): k is string => !!k);
  logSecrets = () => [...everyUsersSecrets(env), ...hostModelKeys];
  let app: AppHandle;
  try {
    const userMoved = {
      arrived(user: string) {
        webhooks.adoptUser(user);
        features.crawls.resumeUser(user);
        features.tasks.resumeUser(user);
        features.monitors.adoptUser(user);
      },
      async leaving(user: string) {
        features.monitors.forgetUser(user);
        await features.crawls.stopUser(user);
        webhooks.dropUser(user);
      },
    };
    app = await startApp({ env, callTool: pipeline.callTool, tools: TOOLS, services, stopAccount: (user) => accounts.stop(user), userMoved }, FEATURES, VERSION);
  } catch (e) {
    handoffs.close();
    await webhooks.stop().catch(() => undefined);
    await proxy.close();
    await db.close();
    throw e;
  }
  appPort = app.port;
  // Runs that were going when the daemon last stopped (or was killed) go on from their stored queues.
  features.crawls.resumeAll();
  // Tasks that were running or queued go on from their last stored step; paused ones wait on their hand-offs.
  features.tasks.resumeAll();
  // Recordings a restart cut off are stopped, and replays it interrupted end failed.
  await features.records.start();
  // Rows that came due while the daemon was down (or were in flight at a kill) go out now.
  webhooks.start();
  // Monitors whose run fell while the daemon was down run once now; the rest wait for their next run.
  features.monitors.start();
  // Accounts disabled from outside (the CLI writes the store) stop here within a couple of seconds.
  const stopWatchingAccounts = accounts.watch();
  // Host rules the CLI writes beside the running daemon are in force here before the CLI reports them.
  const stopWatchingPolicies = policies.watch();
  const url = `http://${cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host}:${app.port}`;
  log.info({ url, mcp: `${url}/mcp`, dataDir: cfg.dataDir, maxBrowsers: pool.maxBrowsers, bundled: runningBundled, http: app.server.kind, httpWhy: app.server.why }, 'browserd listening');
  let stopping: Promise<void> | undefined;
  return {
    env,
    pipeline,
    features,
    app,
    port: app.port,
    url,
    stop() {
      // Stop accepting (503 while closing), close browsers gracefully (cookies flushed), then the store.
      stopping ??= (async () => {
        app.closing = true;
        stopWatchingAccounts();
        stopWatchingPolicies();
        // Before the hand-offs close: a paused task must not take their closing for a person's answer.
        const tasksStopped = features.tasks.close();
        // Waiting browser_handoff_wait calls answer now (still open) instead of holding their sessions open.
        handoffs.close();
        const bound = new Promise((r) => setTimeout(r, cfg.shutdownGraceMs).unref());
        await Promise.race([
          (async () => {
            await app.mcp.closeAll();
            // Running steps stop while the browsers are still there; their tasks stay running on record.
            await tasksStopped;
            // No new crawl page starts; pages in flight finish while the browsers are still there.
            await features.crawls.close();
            await features.records.close();
            // No new check starts; checks in flight finish (and emit) while browsers and webhooks are up.
            await features.monitors.stop();
            env.live.close();
            await env.cdpSessions.closeAll();
            await pool.closeAll();
          })(),
          bound,
        ]);
        app.close();
        // After the browsers: a download settling while they close still gets its row; attempts in flight stay pending.
        await webhooks.stop().catch(() => undefined);
        await proxy.close().catch(() => undefined);
        await closeMarkdownThreads().catch(() => undefined);
        await closeConverterThreads().catch(() => undefined);
        await adblock.close().catch(() => undefined);
        await db.close().catch(() => undefined);
        await lock.release();
        log.info('browserd stopped');
      })();
      return stopping;
    },
  };
}

function cdpServices(db: ReturnType<typeof openDb>, log: Logger, cfg: Config, baseUrl: () => string, keyOf: (user: string) => string | undefined) {
  const usage = new UsageStore(db);
  return { usage, cdpSessions: new CdpSessions(usage, log, cfg.cdpSessionMaxMinutes, baseUrl, keyOf) };
}
