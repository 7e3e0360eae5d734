/**
 * Group commit: callers submit one item each; items that arrive while a flush is in flight wait
 * and go together in the next flush. Nothing waits on a timer, so a lone caller is flushed at
 * once, and under load one flush (one transaction) carries many items.
 *
 * A flush starts from setImmediate, after the event loop has taken in pending I/O, so the
 * requests that arrived meanwhile join it instead of waiting for the next one.
 */
export class GroupCommitter<Item, Result> {
  private readonly queue: { item: Item; resolve(result: Result): void; reject(error: unknown): void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly flush: (items: Item[]) => Promise<Result[]>,
    private readonly options: {
      maxBatch?: number;
      concurrency?: number;
      /** Told of every flush: how many items, how long it took, whether it succeeded (for metrics). */
      onFlush?: (size: number, seconds: number, ok: boolean) => void;
    } = {},
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves when everything submitted so far has been flushed. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const concurrency = this.options.concurrency ?? 1;
    while (this.inFlight < concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch ?? 1000);
      this.inFlight += 1;
      const started = performance.now();
      const observe = (ok: boolean) => this.options.onFlush?.(batch.length, (performance.now() - started) / 1000, ok);
      this.flush(batch.map((entry) => entry.item))
        .then(
          (results) => {
            observe(true);
            if (results.length !== batch.length) throw new Error(`flush returned ${results.length} results for ${batch.length} items`);
            batch.forEach((entry, i) => entry.resolve(results[i]!));
          },
          (error: unknown) => {
            observe(false);
            batch.forEach((entry) => entry.reject(error));
          },
        )
        .catch((error: unknown) => batch.forEach((entry) => entry.reject(error)))
        .finally(() => {
          this.inFlight -= 1;
          this.schedule();
        });
    }
  }
}
