import { describe, expect, it } from "vitest";
import { toolPageMarkdown } from "../../scripts/docs/tool-pages";

/** The fenced code blocks of a page's Markdown, each as the reader copies it. */
const codeBlocks = (markdown: string) => [...markdown.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

describe("a generated tool page's example", () => {
  it("is a curl command whose continued lines follow one another", () => {
    const [curl] = codeBlocks(toolPageMarkdown({ generated: "generic" }, "¥"));
    expect(curl!.split("\n").slice(0, 3).every((line) => line.endsWith("\\"))).toBe(true);
    expect(curl).not.toMatch(/\\\n\s*\n/);
  });

  it("for an OpenAI-compatible tool is the SDK's code, a blank line only between its steps", () => {
    const [js] = codeBlocks(toolPageMarkdown({ generated: "models" }, "¥"));
    expect(js!.startsWith('import OpenAI from "openai";\n\nconst client = new OpenAI(')).toBe(true);
    expect(js).toMatch(/\nconsole\.log\(answer\.choices\[0\]\.message\.content\);\n\nconst stream = /);
    expect(js).not.toMatch(/\n\n\n/);
  });
});
