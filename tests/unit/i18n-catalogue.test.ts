import { describe, expect, it } from "vitest";
import { en } from "../../src/web/i18n/en";
import { zhCN } from "../../src/web/i18n/zh-CN";

function flatten(node: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (value && typeof value === "object") for (const [k, v] of flatten(value, path)) out.set(k, v);
      else out.set(path, value);
    }
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

/** SPEC.md's user-facing strings, which the English catalogue must hold verbatim. */
const SPEC_STRINGS = [
  "verification code login",
  "login/register",
  "please enter phone number",
  "please enter the correct phone number",
  "please enter the 6-digit code",
  "request timed out, server did not respond!",
  "server resource does not exist",
  "server internal error",
  "no permission to access this resource",
  "too many requests, please try later",
  "unknown error!",
  "please read and tick the User Agreement and Privacy Agreement first.",
  "captcha failed to load, please retry later",
  "failed to send code, please retry later",
  "code sent successfully",
  "code sending failed",
];

describe("the translation catalogues", () => {
  const english = flatten(en);
  const chinese = flatten(zhCN);

  it("give every English text a non-empty Simplified Chinese one", () => {
    const missing = [...english.keys()].filter((key) => {
      const value = chinese.get(key);
      return typeof value !== "string" || value.trim() === "";
    });
    expect(missing).toEqual([]);
  });

  it("have no Chinese text without an English one", () => {
    expect([...chinese.keys()].filter((key) => !english.has(key))).toEqual([]);
  });

  it("hold only strings, with the same {{placeholders}} in both languages", () => {
    for (const [key, value] of english) {
      expect(typeof value, key).toBe("string");
      expect(placeholders(String(chinese.get(key) ?? "")), key).toEqual(placeholders(String(value)));
    }
  });

  it("address the reader one way in Chinese, as 您", () => {
    expect([...chinese].filter(([, value]) => String(value).includes("你"))).toEqual([]);
  });

  it("hold SPEC.md's strings verbatim in English", () => {
    const values = new Set(english.values());
    expect(SPEC_STRINGS.filter((text) => !values.has(text))).toEqual([]);
  });
});
