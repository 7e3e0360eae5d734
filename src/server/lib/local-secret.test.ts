import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { runNode } from "../testing/server-process";

const MODULE = path.join(import.meta.dirname, "local-secret.ts");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-local-secret-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A process of its own (Node strips the module's types) that waits for the wall clock to reach `at`, then reads or makes the secret. */
function racer(file: string, at: number) {
  const script = `const { readOrCreateSecret } = await import(${JSON.stringify(MODULE)}); while (Date.now() < ${at}); process.stdout.write(readOrCreateSecret(${JSON.stringify(file)}));`;
  return runNode(["--input-type=module", "-e", script]);
}

it("gives processes starting at once on a new folder one secret, kept whole and owner-only, with nothing else left there", async () => {
  for (let round = 0; round < 12; round++) {
    const file = path.join(root, `data-${round}`, ".session-secret");
    const at = Date.now() + 400;
    const results = await Promise.all(Array.from({ length: 4 }, () => racer(file, at)));
    expect(results.map(({ code, err }) => ({ code, err }))).toEqual(Array(4).fill({ code: 0, err: "" }));
    const kept = fs.readFileSync(file, "utf8");
    expect(kept).toMatch(/^[0-9a-f]{64}$/);
    expect(results.map(({ out }) => out)).toEqual(Array(4).fill(kept));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual([".session-secret"]);
  }
});

it("reads the secret already kept", async () => {
  const file = path.join(root, "kept", ".session-secret");
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, "a".repeat(64) + "\n");
  expect(await racer(file, 0)).toEqual({ code: 0, out: "a".repeat(64), err: "" });
});
