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

  it("sets a Latin name off from the Chinese beside it with a space, and a Chinese name not", () => {
    const template = "{{siteName}}由{{companyName}}运营，说明{{siteName}}（“本服务”）与 {{siteName}} 的区别";
    expect(fillPlaceholders(template, { siteName: "Tollgate", companyName: "Acme 2" })).toBe("Tollgate 由 Acme 2 运营，说明 Tollgate（“本服务”）与 Tollgate 的区别");
    expect(fillPlaceholders("{{siteName}}由{{companyName}}运营", { siteName: "Tollgate", companyName: "Acme Inc." })).toBe("Tollgate 由 Acme Inc. 运营");
    expect(fillPlaceholders(template, { siteName: "收费站", companyName: "某某科技有限公司" })).toBe("收费站由某某科技有限公司运营，说明收费站（“本服务”）与 收费站 的区别");
  });

  it("leaves unknown placeholders as they are", () => {
    expect(fillPlaceholders("{{siteName}} {{unknown}}", { siteName: "Tollgate" })).toBe("Tollgate {{unknown}}");
  });
});
