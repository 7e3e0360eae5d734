import { describe, expect, it } from "vitest";
import { apiReferenceMarkdown, exampleValue, fieldRows, typeLabel } from "../../scripts/docs/api-reference";
import type { JsonSchema, OpenApiDocument } from "../../scripts/docs/openapi-types";
import { createMarkdownRenderer } from "../../scripts/markdown/render";

const keySchema = {
  type: "object",
  properties: {
    id: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
    name: { type: "string", minLength: 1, maxLength: 64, description: "Shown in the list" },
    status: { type: "string", enum: ["active", "disabled"] },
    spendLimit: { nullable: true, type: "string", description: "Decimal amount" },
    expiresAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
    allowedTools: { type: "array", items: { type: "string" } },
    usage: { type: "array", items: { $ref: "#/components/schemas/Day" } },
  },
  required: ["id", "name", "status"],
} satisfies JsonSchema;

const doc: OpenApiDocument = {
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  components: {
    schemas: { Day: { type: "object", properties: { date: { type: "string", format: "date" }, calls: { type: "integer" } }, required: ["date"] } },
  },
  paths: {
    "/api/v1/console/keys": {
      get: { summary: "List your API keys", tags: ["api-keys"], security: [{ bearer: [] }], responses: { "200": { description: "Default Response", content: { "application/json": { schema: { type: "object", properties: { keys: { type: "array", items: keySchema } }, required: ["keys"] } } } } } },
      post: {
        summary: "Create an API key",
        tags: ["api-keys"],
        security: [{ bearer: [] }],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } } } },
        responses: { "201": { description: "Default Response", content: { "application/json": { schema: keySchema } } } },
      },
    },
    "/api/v1/console/keys/{id}": {
      delete: { summary: "Delete a key", tags: ["api-keys"], parameters: [{ in: "path", name: "id", required: true, schema: { type: "integer" } }], responses: { "204": { description: "Default Response" } } },
    },
    "/api/v1/health": { get: { summary: "Liveness", tags: ["system"], responses: { "200": { description: "Default Response" } } } },
    "/{*}": { get: { responses: { "200": { description: "Default Response" } } } },
  },
};

describe("schema rendering", () => {
  it("names types the way a reader expects, nullable and arrays included", () => {
    const props = keySchema.properties;
    expect(typeLabel(props.spendLimit, doc)).toBe("string or null");
    expect(typeLabel(props.expiresAt, doc)).toBe("string (date-time) or null");
    expect(typeLabel(props.allowedTools, doc)).toBe("array of string");
    expect(typeLabel(props.usage, doc)).toBe("array of object");
  });

  it("flattens nested objects and arrays of objects into dotted field rows, with constraints in the description", () => {
    const rows = fieldRows(keySchema, doc);
    expect(rows.map((r) => r.name)).toEqual(["id", "name", "status", "spendLimit", "expiresAt", "allowedTools", "usage", "usage[].date", "usage[].calls"]);
    expect(rows.find((r) => r.name === "name")).toMatchObject({ required: true, description: "Shown in the list 1 to 64 characters." });
    expect(rows.find((r) => r.name === "status")?.description).toBe("One of `active`, `disabled`.");
    expect(rows.find((r) => r.name === "id")?.description).toBe("");
  });

  it("builds an example from the schema", () => {
    expect(exampleValue(keySchema, doc)).toEqual({
      id: 1,
      name: "name",
      status: "active",
      spendLimit: "12.50",
      expiresAt: "2026-03-01T08:00:00.000Z",
      allowedTools: ["allowedTools"],
      usage: [{ date: "2026-03-01", calls: 1 }],
    });
  });
});

describe("the console API reference page", () => {
  const markdown = apiReferenceMarkdown(doc);
  const page = createMarkdownRenderer().render(markdown);

  it("documents every API route once, grouped by tag, and nothing outside /api", () => {
    expect(page.headings.filter((h) => h.level === 2).map((h) => h.text)).toEqual(["Endpoints", "API keys", "System"]);
    expect(page.headings.filter((h) => h.level === 3).map((h) => h.text)).toEqual(["List your API keys", "Create an API key", "Delete a key", "Liveness"]);
    expect(markdown).not.toContain("/{*}");
  });

  it("links each row of the endpoint table to the section the page really has", () => {
    const ids = new Set(page.headings.map((h) => h.id));
    const targets = [...page.html.matchAll(/<td><a href="#([^"]+)">/g)].map((m) => m[1]!);
    expect(targets).toHaveLength(4);
    for (const id of targets) expect(ids).toContain(id);
  });

  it("says which routes need a session, and shows parameters, bodies and responses", () => {
    expect(page.html).toContain("<code>DELETE /api/v1/console/keys/{id}</code>");
    expect(page.html).toContain("Requires a signed-in session");
    expect(page.html).toContain("<strong>Path parameters</strong>");
    expect(page.html).toContain("<strong>Request body</strong> (<code>application/json</code>, required)");
    expect(page.html).toContain("<strong>Response <code>204</code></strong>");
    expect(page.html).toContain("<code>keys[].spendLimit</code>");
  });
});

describe("the console API reference page in Chinese", () => {
  const html = createMarkdownRenderer().render(apiReferenceMarkdown(doc, "zh-CN")).html;
  /** The type column of the field table under `field`: the second cell of its row. */
  const typeOf = (field: string) => new RegExp(`<td><code>${field.replace(/[[\].]/g, "\\$&")}</code></td>\\s*<td>([^<]*)</td>`).exec(html)?.[1];

  it("writes a field's type in Chinese around the JSON type names", () => {
    expect(typeOf("keys[].spendLimit")).toBe("string 或 null");
    expect(typeOf("keys[].expiresAt")).toBe("string (date-time) 或 null");
    expect(typeOf("keys[].allowedTools")).toBe("string 数组");
    expect(typeOf("keys[].usage")).toBe("object 数组");
    expect(typeOf("keys")).toBe("object 数组");
    expect(html).not.toMatch(/\bor null\b|\barray of\b/);
  });
});
