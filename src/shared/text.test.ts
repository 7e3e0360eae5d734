import { describe, expect, it } from "vitest";
import { escapeUnprintable, unsafeTextProblem, userText } from "./text";

describe("the text rule for typed fields (issue 23 §2, §11)", () => {
  it.each([
    ["NUL", "a\u0000b"],
    ["line feed", "Acme\nTrusted Bank Ltd"],
    ["carriage return", "a\rb"],
    ["tab", "a\tb"],
    ["escape sequence", "\u001b[2J"],
    ["DEL", "a\u007f"],
    ["C1 control (CSI)", "a\u009b2J"],
    ["bidi override", "abc\u202edcba"],
    ["bidi isolate", "\u2066x\u2069"],
    ["right-to-left mark", "a\u200fb"],
    ["Arabic letter mark", "a\u061cb"],
    ["line separator", "a\u2028b"],
  ])("refuses a %s", (_what, text) => {
    expect(unsafeTextProblem(text)).toBe("control");
  });

  it("refuses lone surrogates, which cannot be stored as UTF-8", () => {
    expect(unsafeTextProblem("a\ud800b")).toBe("malformed");
    expect(unsafeTextProblem("a\udc00")).toBe("malformed");
  });

  it("accepts ordinary text in any script, emoji and zero-width joiners", () => {
    for (const text of ["Acme Labs", "中文项目 – 拼音", "café", "👩‍💻 team", "O'Brien & Co. (beta)"]) expect(unsafeTextProblem(text)).toBeNull();
  });

  it("lets a multi-line field hold line feeds and nothing else of the kind", () => {
    expect(unsafeTextProblem("line one\nline two", { multiline: true })).toBeNull();
    expect(unsafeTextProblem("line one\r\nline two", { multiline: true })).toBe("control");
    expect(unsafeTextProblem("x\u0000", { multiline: true })).toBe("control");
  });

  it("is a zod refinement whose issue carries the field's path", () => {
    const result = userText().trim().min(1).safeParse("a\u0000");
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]?.message).toMatch(/control characters/);
  });
});

describe("escapeUnprintable", () => {
  it("writes controls, bidi controls and lone surrogates as escapes and keeps the rest", () => {
    expect(escapeUnprintable("a\nb\r\tc")).toBe("a\\nb\\r\\tc");
    expect(escapeUnprintable("\u001b[2J\u001b[8mhidden")).toBe("\\x1b[2J\\x1b[8mhidden");
    expect(escapeUnprintable("\u001b]8;;http://evil\u0007x")).toBe("\\x1b]8;;http://evil\\x07x");
    expect(escapeUnprintable("abc\u202edcba")).toBe("abc\\u202edcba");
    expect(escapeUnprintable("\u0085\ud800")).toBe("\\x85\\ud800");
    expect(escapeUnprintable("中文 👩‍💻 café")).toBe("中文 👩‍💻 café");
  });
});
