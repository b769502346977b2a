/** Time as the scheduler sees it: the real clock in the daemon, a hand-moved one in tests. */

export interface Clock {
  now(): number;
  /** Calls fn after ms (or at once when ms <= 0); the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** setTimeout caps at about 24.8 days; a later run is reached by waking at the cap and looking again. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    // The scheduler never keeps a stopping process alive.
    t.unref();
    return () => clearTimeout(t);
  },
};

/** A clock that moves only when told; timers due by the new time fire in time order. For tests and the bench. */
export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private seq = 0;

  constructor(private t: number) {}

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const id = ++this.seq;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }

  /** Moves the clock to `to`, firing each timer due on the way at its own time. */
  advanceTo(to: number): void {
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > to) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, to);
  }

  /** Jumps to `to` first, then fires what is due, late: a machine that slept (suspend) or a stalled loop. */
  jumpTo(to: number): void {
    this.t = Math.max(this.t, to);
    this.advanceTo(to);
  }

  /** Timers still waiting (the scheduler keeps at most one). */
  pending(): number {
    return this.timers.length;
  }
}
