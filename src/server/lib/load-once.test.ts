import { describe, expect, it } from "vitest";
import { loadOnce } from "./load-once";

describe("loadOnce", () => {
  it("imports once for every caller", async () => {
    let imports = 0;
    const load = loadOnce(async () => ({ n: ++imports }));
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
    expect(imports).toBe(1);
  });

  it("tries a failed import again on the next call, instead of failing until a restart", async () => {
    let attempts = 0;
    const load = loadOnce(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error("EMFILE: too many open files");
      return "module";
    });
    await expect(load()).rejects.toThrow("EMFILE");
    await expect(load()).resolves.toBe("module");
    expect(attempts).toBe(2);
  });
});
