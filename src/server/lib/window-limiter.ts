/**
 * Counts hits per key in fixed windows, in this process's memory. Cheap enough for every
 * gateway call; with several server processes each enforces the limit on its own share.
 */
export class WindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(private readonly windowMs: number) {}

  /** Counts a hit; returns 0 when allowed, or the milliseconds until the window resets. */
  hit(key: string, limit: number, nowMs: number): number {
    this.sweep(nowMs);
    const start = nowMs - (nowMs % this.windowMs);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= limit) return start + this.windowMs - nowMs;
    window.count += 1;
    return 0;
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < this.windowMs) return;
    this.lastSweep = nowMs;
    const current = nowMs - (nowMs % this.windowMs);
    for (const [key, window] of this.windows) if (window.start < current) this.windows.delete(key);
  }
}
