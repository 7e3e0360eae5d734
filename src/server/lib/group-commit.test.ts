import { describe, expect, it } from "vitest";
import { GroupCommitter } from "./group-commit";

function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe("GroupCommitter", () => {
  it("flushes a lone item at once and batches what arrives during a flush", async () => {
    const batches: number[][] = [];
    const gate = deferred();
    const started = deferred();
    const committer = new GroupCommitter<number, number>(async (items) => {
      batches.push(items);
      started.release();
      if (batches.length === 1) await gate.promise;
      return items.map((n) => n * 10);
    });
    const first = committer.submit(1);
    await started.promise;
    const rest = [2, 3, 4].map((n) => committer.submit(n));
    gate.release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it("takes items submitted in the same turn of the event loop as one batch", async () => {
    const batches: number[][] = [];
    const committer = new GroupCommitter<number, number>(async (items) => {
      batches.push(items);
      return items;
    });
    await Promise.all([1, 2, 3].map((n) => committer.submit(n)));
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it("respects the batch size", async () => {
    const sizes: number[] = [];
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        sizes.push(items.length);
        return items;
      },
      { maxBatch: 2 },
    );
    const gate = committer.submit(0);
    await Promise.all([gate, ...[1, 2, 3, 4, 5].map((n) => committer.submit(n))]);
    expect(sizes.reduce((a, b) => a + b)).toBe(6);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
  });

  it("rejects every item of a failed flush and keeps serving later ones", async () => {
    let fail = true;
    const committer = new GroupCommitter<number, number>(async (items) => {
      if (fail) throw new Error("database down");
      return items;
    });
    await expect(committer.submit(1)).rejects.toThrow("database down");
    fail = false;
    expect(await committer.submit(2)).toBe(2);
  });
});
