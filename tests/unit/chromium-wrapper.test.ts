import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_EXECUTABLE } from "../../playwright.config";

// A stand-in for Chromium that prints the arguments it was given and its effective capabilities.
let dir: string;
let fake: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "chromium-wrapper-"));
  fake = path.join(dir, "chromium");
  fs.writeFileSync(fake, '#!/bin/sh\nfor a in "$@"; do echo "arg $a"; done\ngrep CapEff /proc/self/status\n', { mode: 0o755 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) => execFileSync(CHROMIUM_EXECUTABLE, args, { env: { ...process.env, CHROMIUM_PATH: fake }, encoding: "utf8" });

describe("the browser tests' Chromium", () => {
  it("gets one --disable-features with every list it was given, as Chromium reads only the last, and the other arguments as they were", () => {
    const out = run("--no-sandbox", "--disable-features=A,B", "--lang=en US", "--disable-features=C");
    expect(out.split("\n").filter((line) => line.startsWith("arg "))).toEqual(["arg --no-sandbox", "arg --lang=en US", "arg --disable-features=A,B,C"]);
  });

  it("cannot raise its own priority, even run as root as on CI: it lacks CAP_SYS_NICE", () => {
    const effective = BigInt(`0x${/CapEff:\s*([0-9a-f]+)/.exec(run())![1]}`);
    const CAP_SYS_NICE = 23n;
    expect((effective >> CAP_SYS_NICE) & 1n).toBe(0n);
  });
});
