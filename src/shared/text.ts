import { z } from "zod";

/*
 * The one rule for text a person types (decision 018): no C0 or C1 control character (NUL, line
 * breaks, tabs, escape sequences), no bidirectional-text control, and well-formed Unicode. Such
 * characters cannot be stored (NUL), forge lines in a terminal or a CSV file, or reorder what a
 * reader sees. Multi-line fields may hold line feeds, and nothing else of the kind.
 */

export type UnsafeTextProblem = "control" | "malformed";

export const TEXT_MESSAGES = {
  control: "must not contain control characters, tabs, line breaks or text-direction marks",
  controlMultiline: "must not contain control characters, tabs or text-direction marks",
  malformed: "must be valid Unicode text",
} as const;

/** Line feed, for fields that may span lines. */
const LINE_FEED = 0x0a;

/** C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F), bidi marks, embeddings, overrides and isolates, and the Unicode line and paragraph separators. */
export function isUnsafeCodePoint(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

export function unsafeTextProblem(text: string, { multiline = false } = {}): UnsafeTextProblem | null {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i += 1;
      else return "malformed";
    } else if (isUnsafeCodePoint(code) && !(multiline && code === LINE_FEED)) {
      return "control";
    }
  }
  return null;
}

/** A zod refinement refusing unsafe text; the API's error names the field (`name: must not …`). */
export function refuseUnsafeText({ multiline = false } = {}) {
  return (value: string, ctx: z.RefinementCtx) => {
    const problem = unsafeTextProblem(value, { multiline });
    if (problem === "malformed") ctx.addIssue({ code: "custom", message: TEXT_MESSAGES.malformed, continue: false });
    if (problem === "control") ctx.addIssue({ code: "custom", message: multiline ? TEXT_MESSAGES.controlMultiline : TEXT_MESSAGES.control, continue: false });
  };
}

/** A string field a user or client fills in: `z.string()` with the text rule first. */
export function userText(params?: Parameters<typeof z.string>[0], options: { multiline?: boolean } = {}) {
  return z.string(params).superRefine(refuseUnsafeText(options));
}

const NAMED_ESCAPES: Record<number, string> = { 0x09: "\\t", 0x0a: "\\n", 0x0d: "\\r" };

/**
 * Text with every character the unsafe-text rule refuses (and any lone surrogate) written as an
 * escape (`\n`, `\x1b`, `\u202e`), for printing what others typed to a terminal.
 */
export function escapeUnprintable(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const pairEnd = code >= 0xd800 && code <= 0xdbff ? text.charCodeAt(i + 1) : NaN;
    if (pairEnd >= 0xdc00 && pairEnd <= 0xdfff) {
      out += text.slice(i, i + 2);
      i += 1;
    } else if (isUnsafeCodePoint(code) || (code >= 0xd800 && code <= 0xdfff)) {
      out += NAMED_ESCAPES[code] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`);
    } else {
      out += text[i];
    }
  }
  return out;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** False when the text holds a lone surrogate, which has no UTF-8 form. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}
