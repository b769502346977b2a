/**
 * Every frame of a tab in document order, out-of-process ones included, each with the CDP session that can
 * run script in it. A frame from another site runs in its own renderer (site isolation): the tab's session does
 * not see it in its frame tree or reach its DOM, so we attach a session of our own to its target (an iframe
 * target's id is its frame id) and walk its document there. Sessions we attach are ours to detach: a walk is
 * released when its caller is done, keeping only the session a capture still needs.
 */
import type { CdpConnection } from '../cdp/connection.js';
import type { Tab } from '../browser/tab.js';

export interface FrameInfo {
  /** 0 is the main frame; then frames in document order, nested ones right after the frame that holds them. */
  index: number;
  frameId: string;
  /** The frame's window name and address: page data. */
  name: string;
  url: string;
  /** The loader of the document the frame shows now: another value later means it navigated. */
  loaderId: string;
  /** The session whose renderer runs this frame (the tab's own, or one attached to an out-of-process frame). */
  session: string;
  /** The frame holding this one, and the session of that parent's renderer (where its <iframe> element lives). */
  parentFrameId?: string;
  parentSession?: string;
  /** True when the frame is the root of its own renderer's session (the main frame or an out-of-process frame). */
  localRoot: boolean;
}

interface DomNode {
  nodeName: string;
  frameId?: string;
  children?: DomNode[];
  contentDocument?: DomNode;
  shadowRoots?: DomNode[];
}

interface TreeNode { frame: { id: string; parentId?: string; name?: string; url: string; urlFragment?: string; loaderId: string }; childFrames?: TreeNode[] }

/** Out-of-process frames deeper than this are not walked: a page could nest them without end. */
const MAX_FRAMES = 200;

export class FrameWalk {
  readonly frames: FrameInfo[] = [];
  /** Sessions this walk attached, by frame id; released ones are detached. */
  private attached = new Map<string, string>();

  private constructor(readonly conn: CdpConnection, readonly tab: Tab) {}

  static async of(conn: CdpConnection, tab: Tab): Promise<FrameWalk> {
    const walk = new FrameWalk(conn, tab);
    try {
      await walk.walkSession(tab.sessionId, undefined, undefined);
    } catch (e) {
      await walk.release();
      throw e;
    }
    return walk;
  }

  /** One renderer's frames: its frame tree says what each is, its DOM says in which order they come. */
  private async walkSession(session: string, parentFrameId: string | undefined, parentSession: string | undefined): Promise<void> {
    const c = this.conn;
    const [{ frameTree }, { root }] = await Promise.all([
      c.send('Page.getFrameTree', {}, session),
      // pierce: the documents of same-process frames and shadow roots are part of the answer, in tree order.
      c.send('DOM.getDocument', { depth: -1, pierce: true }, session) as Promise<{ root: DomNode }>,
    ]);
    const local = new Map<string, TreeNode['frame']>();
    const index = (n: TreeNode) => {
      local.set(n.frame.id, n.frame);
      for (const ch of n.childFrames ?? []) index(ch);
    };
    index(frameTree as TreeNode);
    const top = frameTree.frame;
    this.push(top, session, parentFrameId, parentSession, true);
    // Frame owner elements in document order; a same-process frame's own document follows its owner.
    const owners: { frameId: string; parent: string }[] = [];
    const visit = (n: DomNode, inFrame: string) => {
      if (n.frameId && /^(IFRAME|FRAME)$/i.test(n.nodeName)) owners.push({ frameId: n.frameId, parent: inFrame });
      for (const s of n.shadowRoots ?? []) visit(s, inFrame);
      for (const ch of n.children ?? []) visit(ch, inFrame);
      if (n.contentDocument && n.frameId) visit(n.contentDocument, n.frameId);
    };
    visit(root, top.id);
    for (const o of owners) {
      if (this.frames.length >= MAX_FRAMES) return;
      const same = local.get(o.frameId);
      if (same) {
        this.push(same, session, same.parentId ?? o.parent, session, false);
        continue;
      }
      const child = await this.attach(o.frameId);
      // An owner whose frame has no document yet (or went away meanwhile) is no frame to list.
      if (child) await this.walkSession(child, o.parent, session).catch(() => undefined);
    }
  }

  private push(f: TreeNode['frame'], session: string, parentFrameId: string | undefined, parentSession: string | undefined, localRoot: boolean) {
    if (this.frames.some((x) => x.frameId === f.id)) return;
    this.frames.push({
      index: this.frames.length,
      frameId: f.id,
      name: f.name ?? '',
      url: f.url + (f.urlFragment ?? ''),
      loaderId: f.loaderId,
      session,
      parentFrameId,
      parentSession,
      localRoot,
    });
  }

  private async attach(frameId: string): Promise<string | undefined> {
    const r = await this.conn.sendMayFail('Target.attachToTarget', { targetId: frameId, flatten: true });
    if (!r) return undefined;
    this.attached.set(frameId, r.sessionId);
    return r.sessionId;
  }

  frame(index: number): FrameInfo | undefined {
    return this.frames[index];
  }

  /** The frame and every frame above it, up to the main frame: what measuring its offset goes through. */
  chain(frame: FrameInfo): FrameInfo[] {
    const out = [frame];
    for (let f = frame; f.parentFrameId; ) {
      const up = this.frames.find((x) => x.frameId === f.parentFrameId);
      if (!up) break;
      out.push(up);
      f = up;
    }
    return out;
  }

  /** Sessions this walk attached that `frames` run in. */
  sessionsOf(frames: readonly FrameInfo[]): string[] {
    const ours = new Set(this.attached.values());
    return [...new Set(frames.map((f) => f.session).filter((s) => ours.has(s)))];
  }

  /**
   * Detaches every session this walk attached except those of `keep` (frame ids whose session a capture goes
   * on using); the kept ones become the caller's to detach (detachSession).
   */
  async release(keep: readonly string[] = []): Promise<void> {
    const keepSessions = new Set(this.frames.filter((f) => keep.includes(f.frameId)).map((f) => f.session));
    const drop = [...this.attached.values()].filter((s) => !keepSessions.has(s));
    this.attached.clear();
    await Promise.all(drop.map((s) => detachSession(this.conn, s)));
  }
}

/** Ends a session we attached; the tab's own session is never passed here. */
export async function detachSession(conn: CdpConnection, session: string): Promise<void> {
  await conn.sendMayFail('Target.detachFromTarget', { sessionId: session });
}

/** The tab's frames, for listing: every session attached on the way is detached again before this returns. */
export async function listFrames(conn: CdpConnection, tab: Tab): Promise<FrameInfo[]> {
  const walk = await FrameWalk.of(conn, tab);
  await walk.release();
  return walk.frames;
}
