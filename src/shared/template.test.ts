import { describe, expect, it } from "vitest";
import { escapeHtml, fillPlaceholders } from "./template";

describe("fillPlaceholders", () => {
  it("fills every named placeholder, also where Markdown percent-encoded it in a link", () => {
    const html = '<a href="mailto:%7B%7BcontactEmail%7D%7D">{{contactEmail}}</a> by {{companyName}}';
    expect(fillPlaceholders(html, { contactEmail: "legal@acme.test", companyName: "Acme" })).toBe(
      '<a href="mailto:legal@acme.test">legal@acme.test</a> by Acme',
    );
  });

  it("escapes values for HTML when asked, so a configured name cannot inject markup", () => {
    expect(fillPlaceholders("<p>{{companyName}}</p>", { companyName: 'A & B <script>"x"' }, escapeHtml)).toBe(
      "<p>A &amp; B &lt;script&gt;&quot;x&quot;</p>",
    );
  });

  it("leaves unknown placeholders as they are", () => {
    expect(fillPlaceholders("{{siteName}} {{unknown}}", { siteName: "Tollgate" })).toBe("Tollgate {{unknown}}");
  });
});
