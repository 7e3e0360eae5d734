import { expect, it } from "vitest";
import "../../src/web/lib/zod-jitless";
import { config } from "zod/v4/core";
import { z } from "zod";

it("turns zod's eval probe off, so the browser's CSP reports no violations", () => {
  expect(config().jitless).toBe(true);
  expect(z.object({ a: z.string() }).parse({ a: "x" })).toEqual({ a: "x" });
});
