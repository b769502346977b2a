/**
 * How many new tabs the host builds at once, over every user's browser.
 *
 * Building a tab is the dearest thing a browser does here: a window of its own (instance.ts), a renderer
 * process started and set up, the tab's rules installed. On a small host a few users opening tabs together
 * kept every core busy with that, and everyone's clicks and snapshots on pages already open waited behind it.
 * With the builds taken a few at a time, in the order they were asked for, work on open pages keeps the
 * cores it needs and a new tab waits its turn instead: the same number of calls gets through, and a slow
 * build delays only the tabs queued after it, never a call on a page already open.
 *
 * Only the building is held here (create, attach, set up): the first page load is not, so a slow site keeps
 * no one else's tab from being built.
 */
/**
 * The longest one build keeps its turn. A browser that stops answering mid-build (its CDP calls wait out their
 * own timeout) must not hold up every other user's new tabs: past this its turn passes on, and the build
 * goes on outside the count.
 */
export const TURN_MAX_MS = 5000;

export class TabStarts {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Builds begun, and the most that held a turn at once: what the tests and the load bench read. */
  started = 0;
  peak = 0;
  /** The longest line of tabs that waited for a turn. */
  longestQueue = 0;

  constructor(
    readonly slots: number,
    private readonly turnMaxMs = TURN_MAX_MS,
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`tab starts must be a whole number of at least 1, not ${slots}`);
  }

  /** Tabs waiting for their turn to be built. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs one build in its turn, first come first served; the turn passes on when the build ends or overruns. */
  async run<T>(build: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots) {
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        this.longestQueue = Math.max(this.longestQueue, this.waiting.length);
      });
    } else this.running++;
    this.peak = Math.max(this.peak, this.running);
    this.started++;
    let passed = false;
    const pass = () => {
      if (passed) return;
      passed = true;
      clearTimeout(overrun);
      // Straight to the next in line, so a newcomer cannot take the turn between the two.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
    const overrun = setTimeout(pass, this.turnMaxMs);
    try {
      return await build();
    } finally {
      pass();
    }
  }
}
