import { describe, expect, it } from "vitest";
import { createMarkdownRenderer, extractExamples } from "../../scripts/markdown/render";

describe("the Markdown renderer", () => {
  it("takes the leading heading as the title and leaves it out of the body", () => {
    const doc = createMarkdownRenderer().render("# Privacy Agreement\n\nHello.\n");
    expect(doc.title).toBe("Privacy Agreement");
    expect(doc.html).toBe("<p>Hello.</p>\n");
  });

  it("gives every heading a unique id and a permalink, and lists levels 2 and 3 for the table of contents", () => {
    const doc = createMarkdownRenderer().render("# T\n\n## Request `body`\n\n### Fields\n\n#### Deep\n\n## Request body\n");
    expect(doc.headings).toEqual([
      { level: 2, id: "request-body", text: "Request body" },
      { level: 3, id: "fields", text: "Fields" },
      { level: 2, id: "request-body-1", text: "Request body" },
    ]);
    expect(doc.html).toContain('<h2 id="request-body">Request <code>body</code><a class="heading-anchor" href="#request-body"');
    expect(doc.html).toContain('<h4 id="deep">Deep<a class="heading-anchor" href="#deep"');
  });

  it("takes a heading's id from a trailing {#id}, as the translated pages keep the English ids", () => {
    const doc = createMarkdownRenderer({ headingLinkLabel: "链接到本节" }).render("# 标题\n\n## 网关错误 {#gateway-errors}\n\n## 请求 `body` {#request-body}\n");
    expect(doc.headings).toEqual([
      { level: 2, id: "gateway-errors", text: "网关错误" },
      { level: 2, id: "request-body", text: "请求 body" },
    ]);
    expect(doc.html).toContain('<h2 id="gateway-errors">网关错误<a class="heading-anchor" href="#gateway-errors" aria-label="链接到本节">#</a></h2>');
  });

  it("rewrites relative links to Markdown files and leaves the others alone", () => {
    const renderer = createMarkdownRenderer({ resolveMarkdownLink: (href) => `/site/${href.replace(".md", ".html")}` });
    const { html } = renderer.render(
      "[a](billing.md#idempotency) [b](https://example.com/x.md) [c](/privacy) [d](#here) [e](mailto:a@b.c)",
    );
    expect(html).toContain('href="/site/billing.html#idempotency"');
    expect(html).toContain('href="https://example.com/x.md"');
    expect(html).toContain('href="/privacy"');
    expect(html).toContain('href="#here"');
    expect(html).toContain('href="mailto:a@b.c"');
  });

  it("aligns table columns by class, as the pages' CSP refuses style attributes", () => {
    const { html } = createMarkdownRenderer().render("| Model | Input |\n|---|---:|\n| `a` | ¥1.00 |\n");
    expect(html).toContain('<th class="align-right">Input</th>');
    expect(html).toContain('<td class="align-right">¥1.00</td>');
    expect(html).not.toContain("style=");
  });

  it("writes a table with an empty header as facts: no header row, each row's label a row header", () => {
    const { html } = createMarkdownRenderer().render("| | |\n|---|---|\n| Tool ID | `echo` |\n| Price | ¥0.0001 |\n\n| A | B |\n|---|---|\n| 1 | 2 |\n");
    expect(html).toContain('<table class="facts">\n<tbody>\n<tr>\n<th scope="row">Tool ID</th>\n<td><code>echo</code></td>\n</tr>\n<tr>\n<th scope="row">Price</th>');
    expect(html.match(/<thead>/g)).toHaveLength(1);
    expect(html).toContain("<th>A</th>");
    expect(html).toContain("<td>1</td>");
  });

  it("highlights fenced code through the highlighter, falling back to escaped code", () => {
    const renderer = createMarkdownRenderer({ highlight: (code, lang) => (lang === "sh" ? `<pre class="hl">${code.trim()}</pre>` : null) });
    const { html } = renderer.render("```sh example=curl\necho hi\n```\n\n```text\n<b>\n```\n");
    expect(html).toContain('<pre class="hl">echo hi</pre>');
    expect(html).toContain("&lt;b&gt;");
  });
});

describe("extractExamples", () => {
  it("returns the fenced blocks flagged as examples, with their language and flags", () => {
    const source = "```sh example=curl\ncurl x\n```\n\n```json\n{}\n```\n\n```python example\nprint(1)\n```\n";
    expect(extractExamples(source)).toEqual([
      { lang: "sh", flags: ["example=curl"], code: "curl x\n" },
      { lang: "python", flags: ["example"], code: "print(1)\n" },
    ]);
  });
});
