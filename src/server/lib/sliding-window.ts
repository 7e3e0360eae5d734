/**
 * Admits at most `limit` hits per key in any `windowMs`, in this process's memory: a log of the
 * admitted hits' times, so there is no window boundary to burst across. It costs one number per
 * admitted hit still inside the window.
 */
export class SlidingWindowLimiter {
  private readonly logs = new Map<string, { times: number[]; head: number }>();
  private lastSweep = 0;

  constructor(private readonly windowMs: number) {}

  /** Counts a hit; returns 0 when admitted, or the milliseconds until one would be. */
  hit(key: string, limit: number, nowMs: number): number {
    this.sweep(nowMs);
    let log = this.logs.get(key);
    if (!log) {
      log = { times: [], head: 0 };
      this.logs.set(key, log);
    }
    const since = nowMs - this.windowMs;
    while (log.head < log.times.length && log.times[log.head]! <= since) log.head += 1;
    if (log.head > 1024 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    const inWindow = log.times.length - log.head;
    if (inWindow < limit) {
      log.times.push(nowMs);
      return 0;
    }
    // The hit that would leave the window first is the one `limit` back from the newest.
    return Math.max(1, log.times[log.times.length - limit]! + this.windowMs - nowMs);
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < this.windowMs) return;
    this.lastSweep = nowMs;
    for (const [key, log] of this.logs) {
      if (log.times.length === 0 || log.times[log.times.length - 1]! <= nowMs - this.windowMs) this.logs.delete(key);
    }
  }
}
