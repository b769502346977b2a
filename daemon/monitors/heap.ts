/**
 * The next runs of every monitor, earliest on top: a binary min-heap keyed by time with an index by monitor,
 * so rescheduling or removing one monitor is O(log n) and the one timer only ever looks at the top.
 */

interface Entry { key: string; at: number }

export class RunHeap {
  private items: Entry[] = [];
  private pos = new Map<string, number>();

  get size(): number {
    return this.items.length;
  }

  peek(): Entry | undefined {
    return this.items[0];
  }

  has(key: string): boolean {
    return this.pos.has(key);
  }

  timeOf(key: string): number | undefined {
    const i = this.pos.get(key);
    return i === undefined ? undefined : this.items[i].at;
  }

  /** Adds the key, or moves it to its new time. */
  set(key: string, at: number): void {
    const i = this.pos.get(key);
    if (i === undefined) {
      this.items.push({ key, at });
      this.pos.set(key, this.items.length - 1);
      this.up(this.items.length - 1);
      return;
    }
    const old = this.items[i].at;
    this.items[i].at = at;
    if (at < old) this.up(i);
    else this.down(i);
  }

  delete(key: string): void {
    const i = this.pos.get(key);
    if (i === undefined) return;
    const last = this.items.pop()!;
    this.pos.delete(key);
    if (i === this.items.length) return;
    this.items[i] = last;
    this.pos.set(last.key, i);
    this.up(i);
    this.down(i);
  }

  /** Removes and returns the earliest entry. */
  pop(): Entry | undefined {
    const top = this.items[0];
    if (top) this.delete(top.key);
    return top;
  }

  private swap(a: number, b: number) {
    const x = this.items[a];
    this.items[a] = this.items[b];
    this.items[b] = x;
    this.pos.set(this.items[a].key, a);
    this.pos.set(this.items[b].key, b);
  }

  private up(i: number) {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.items[p].at <= this.items[i].at) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number) {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.items.length && this.items[l].at < this.items[m].at) m = l;
      if (r < this.items.length && this.items[r].at < this.items[m].at) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
