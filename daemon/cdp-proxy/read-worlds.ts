/**
 * In a read realm (a read tab, or an act tab on a site the user's policy makes read-only) only the page's main
 * world is guarded in-realm (read-guard.ts). A CDP client must not run script in any other world of such a page:
 * not a world of its own (Page.createIsolatedWorld, a new-document script with a worldName) and not the
 * daemon's utility world, whose execution context it sees after Runtime.enable. So in those sessions a command
 * that names an execution context (or an object of one) is allowed only for a main-world context this client
 * was told of (Runtime.executionContextCreated with auxData.isDefault): a guessed id, or one never announced,
 * is refused. The Debugger domain, which runs code in whatever world a script or paused frame belongs to, is
 * refused there as a whole.
 *
 * Which realms are read is asked at each command (a tab's mode or a site's rule may change), by target id:
 * a frame in another process takes the answer of the session it was auto-attached under, and one attached
 * directly, whose tab cannot be told, counts as read (fail closed).
 */

/** What the daemon knows of a page target: a read realm, a realm under act rules, or none of its tabs. */
export type TargetRealm = (targetId: string) => 'read' | 'act' | 'unknown';

interface SessionInfo { targetId: string; type?: string; parent?: string }

const NEXT = 'run it in the page\'s main world: omit the context (or use the main world\'s, from Runtime.executionContextCreated after Runtime.enable)';

export class ReadWorlds {
  private sessions = new Map<string, SessionInfo>();
  /** Main-world execution contexts this client was told of, per session: ids and unique ids. */
  private mainContexts = new Map<string, Set<string>>();

  constructor(private realm: TargetRealm) {}

  /** A session the client attached (parent: the session it was auto-attached under). */
  attached(sessionId: string, targetId: string, type?: string, parent?: string) {
    this.sessions.set(sessionId, { targetId, type, parent });
  }

  detached(sessionId: string) {
    this.sessions.delete(sessionId);
    this.mainContexts.delete(sessionId);
  }

  /** Follows the events forwarded to the client for the contexts it may name. */
  onEvent(method: string, params: any, sessionId: string) {
    if (method === 'Runtime.executionContextCreated' && params?.context?.auxData?.isDefault === true) {
      let set = this.mainContexts.get(sessionId);
      if (!set) this.mainContexts.set(sessionId, (set = new Set()));
      set.add(`id:${params.context.id}`);
      if (typeof params.context.uniqueId === 'string') set.add(`unique:${params.context.uniqueId}`);
    } else if (method === 'Runtime.executionContextsCleared') {
      this.mainContexts.delete(sessionId);
    }
  }

  /** Why this command may not run in that session's page, or undefined when it may. */
  refusal(method: string, params: Record<string, any>, sessionId: string | undefined): string | undefined {
    if (sessionId === undefined || !this.isRead(sessionId, 0)) return undefined;
    const domain = method.split('.')[0];
    if (domain === 'Debugger') return 'the debugger is not available in a read tab or on a read-only site (it runs code in any world of the page)';
    switch (method) {
      case 'Page.createIsolatedWorld':
        return 'a read tab (or a read-only site) runs no script outside its main world, where read mode is enforced';
      case 'Page.addScriptToEvaluateOnNewDocument':
        return params.worldName ? 'a new-document script in a read tab (or on a read-only site) runs in the main world only: omit worldName' : undefined;
      case 'Runtime.evaluate':
        return this.context(sessionId, params.contextId, params.uniqueContextId);
      case 'Runtime.callFunctionOn':
        return this.context(sessionId, params.executionContextId, undefined) ?? this.object(sessionId, params.objectId);
      case 'Runtime.compileScript':
      case 'Runtime.runScript':
      case 'Runtime.globalLexicalScopeNames':
      case 'DOM.resolveNode':
        return this.context(sessionId, params.executionContextId, undefined);
      default:
        return undefined;
    }
  }

  private isRead(sessionId: string, depth: number): boolean {
    const s = this.sessions.get(sessionId);
    if (!s || depth > 32) return true;
    const r = this.realm(s.targetId);
    if (r !== 'unknown') return r === 'read';
    if (s.parent !== undefined) return this.isRead(s.parent, depth + 1);
    // None of the daemon's tabs: the client's own page runs under act rules; workers have no other world. A tab
    // target (Puppeteer attaches pages under one) holds no world itself, and the page under it answers for its
    // own target first: a daemon read tab is still read there.
    return !(s.type === 'page' || s.type === 'tab' || s.type === 'worker' || s.type === 'shared_worker' || s.type === 'service_worker');
  }

  private context(sessionId: string, id: unknown, uniqueId: unknown): string | undefined {
    const known = this.mainContexts.get(sessionId);
    if (id !== undefined && !known?.has(`id:${id}`)) return `execution context ${String(id)} is not this read page's main world; ${NEXT}`;
    if (uniqueId !== undefined && !known?.has(`unique:${uniqueId}`)) return `that execution context is not this read page's main world; ${NEXT}`;
    return undefined;
  }

  /** Remote object ids read "<isolate>.<context>.<n>": the object's context must be a main world too. */
  private object(sessionId: string, objectId: unknown): string | undefined {
    if (objectId === undefined) return undefined;
    const m = typeof objectId === 'string' ? /^-?\d+\.(-?\d+)\.-?\d+$/.exec(objectId) : null;
    if (!m) return 'that object id cannot be told to belong to the main world of this read page';
    return this.mainContexts.get(sessionId)?.has(`id:${m[1]}`) ? undefined : `that object belongs to a world other than this read page's main world; ${NEXT}`;
  }
}
