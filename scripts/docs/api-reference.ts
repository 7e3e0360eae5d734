/** Renders the server's OpenAPI document as the Markdown of the console API reference page. */
import GithubSlugger from "github-slugger";
import { DESCRIPTION_ZH, SUMMARY_ZH, TAG_ZH } from "./api-reference-zh";
import type { DocsLanguage } from "../../src/server/modules/site-pages/docs-languages";

/** The words of each endpoint's section. */
interface SectionWords {
  fieldHeader: string;
  parameterHeader: string;
  yes: string;
  no: string;
  jsonOf: (type: string) => string;
  /** Between two types a field may have: `string or null`. */
  or: string;
  /** The type of a list of `type`: `array of string`. */
  arrayOf: (type: string) => string;
  /** A field of any type. */
  any: string;
  signedIn: string;
  noAuth: string;
  pathParameters: string;
  queryParameters: string;
  headers: string;
  requestBody: string;
  required: string;
  response: string;
  noJsonBody: string;
  /** A description the route schemas hold (in English), in the page's language. */
  text: (english: string) => string;
  /** The notes a schema's constraints add to its description. */
  notes: {
    range: (min: number, max: number) => string;
    atLeast: (min: number) => string;
    atMost: (max: number) => string;
    length: (min: number, max: number) => string;
    atMostLength: (max: number) => string;
    atLeastLength: (min: number) => string;
    atMostItems: (max: number) => string;
    matches: (pattern: string) => string;
    oneOf: (values: string) => string;
    byDefault: (value: string) => string;
  };
}

const SECTION_WORDS: Record<DocsLanguage, SectionWords> = {
  en: {
    fieldHeader: "| Field | Type | Required | Description |",
    parameterHeader: "| Name | Type | Required | Description |",
    yes: "yes",
    no: "no",
    jsonOf: (type) => `A JSON ${type}.`,
    or: " or ",
    arrayOf: (type) => `array of ${type}`,
    any: "any",
    signedIn: "Requires a signed-in session: `Authorization: Bearer <session token>` ([authentication](authentication.md#console-sessions)).",
    noAuth: "No authentication.",
    pathParameters: "Path parameters",
    queryParameters: "Query parameters",
    headers: "Headers",
    requestBody: "Request body",
    required: ", required",
    response: "Response",
    noJsonBody: "No JSON body.",
    text: (english) => english,
    notes: {
      range: (min, max) => `From ${min} to ${max}.`,
      atLeast: (min) => `At least ${min}.`,
      atMost: (max) => `At most ${max}.`,
      length: (min, max) => `${min} to ${max} characters.`,
      atMostLength: (max) => `At most ${max} characters.`,
      atLeastLength: (min) => `At least ${min} characters.`,
      atMostItems: (max) => `At most ${max} items.`,
      matches: (pattern) => `Matches \`${pattern}\`.`,
      oneOf: (values) => `One of ${values}.`,
      byDefault: (value) => `Default \`${value}\`.`,
    },
  },
  "zh-CN": {
    fieldHeader: "| 字段 | 类型 | 必填 | 说明 |",
    parameterHeader: "| 名称 | 类型 | 必填 | 说明 |",
    yes: "是",
    no: "否",
    jsonOf: (type) => `JSON ${type}。`,
    or: " 或 ",
    arrayOf: (type) => `${type} 数组`,
    any: "任意类型",
    signedIn: "需要登录会话：`Authorization: Bearer <session token>`（见[认证](authentication.md#console-sessions)）。",
    noAuth: "无需认证。",
    pathParameters: "路径参数",
    queryParameters: "查询参数",
    headers: "请求头",
    requestBody: "请求体",
    required: "，必填",
    response: "响应",
    noJsonBody: "无 JSON 响应体。",
    text: (english) => DESCRIPTION_ZH[english] ?? english,
    notes: {
      range: (min, max) => `取值 ${min} 到 ${max}。`,
      atLeast: (min) => `至少为 ${min}。`,
      atMost: (max) => `至多为 ${max}。`,
      length: (min, max) => `${min} 到 ${max} 个字符。`,
      atMostLength: (max) => `至多 ${max} 个字符。`,
      atLeastLength: (min) => `至少 ${min} 个字符。`,
      atMostItems: (max) => `至多 ${max} 项。`,
      matches: (pattern) => `须匹配 \`${pattern}\`。`,
      oneOf: (values) => `取值为 ${values} 之一。`,
      byDefault: (value) => `默认为 \`${value}\`。`,
    },
  },
};
import type { JsonSchema, OpenApiDocument, OpenApiOperation, OpenApiParameter } from "./openapi-types";

/** The page's own words; the endpoints' summaries and fields come from the server in English. */
const INTRO: Record<DocsLanguage, { title: string; intro: string; bullets: string[]; endpoints: string; header: string }> = {
  en: {
    title: "Console API reference",
    intro:
      "The console API is what the {{siteName}} console itself uses: your account, API keys, applications, billing, top-ups and credits. " +
      "This page is generated from the server's own route schemas when the site is built, so it always matches the server. " +
      "To call the tools, use the [gateway](quickstart.md) with an API key instead.",
    bullets: [
      "- Base URL: `{{apiBase}}`",
      "- Requests and responses are JSON (`content-type: application/json`), except where a route says otherwise.",
      "- Signed-in routes take the session token from the sign-in as `Authorization: Bearer <session token>`; see [Authentication](authentication.md#console-sessions).",
      "- A failed request answers with a status of 400 or more and `{\"code\": \"…\", \"message\": \"…\"}`; see [Errors](errors.md#console-api-errors).",
      "- Send an `Idempotency-Key` header with every `POST`, `PATCH` and `DELETE` you may retry; see [Idempotency](billing.md#idempotency).",
    ],
    endpoints: "Endpoints",
    header: "| Method | Path | What it does |",
  },
  "zh-CN": {
    title: "控制台 API 参考",
    intro:
      "控制台 API 就是 {{siteName}} 控制台自身使用的接口：您的账户、API 密钥、权限申请、消费明细、充值和入账。" +
      "本页在构建站点时根据服务器自身的路由定义生成，因此始终与服务器一致。" +
      "如需调用工具，请改用 API 密钥通过[网关](quickstart.md)调用。",
    bullets: [
      "- 基础地址：`{{apiBase}}`",
      "- 请求和响应均为 JSON（`content-type: application/json`），路由另有说明的除外。",
      "- 需要登录的路由以 `Authorization: Bearer <session token>` 的形式接收登录得到的会话令牌；见[认证](authentication.md#console-sessions)。",
      "- 失败的请求返回 400 及以上的状态码和 `{\"code\": \"…\", \"message\": \"…\"}`；见[错误](errors.md#console-api-errors)。",
      "- 对每个可能重试的 `POST`、`PATCH` 和 `DELETE` 请求，请发送 `Idempotency-Key` 请求头；见[幂等](billing.md#idempotency)。",
    ],
    endpoints: "接口列表",
    header: "| 方法 | 路径 | 作用 |",
  },
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ").trim() || " ";
}

function resolve(schema: JsonSchema, doc: OpenApiDocument): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace(/^#\/components\/schemas\//, "");
  return doc.components?.schemas?.[name] ?? {};
}

function variants(schema: JsonSchema): JsonSchema[] | null {
  return schema.anyOf ?? schema.oneOf ?? null;
}

function isNull(schema: JsonSchema): boolean {
  return schema.type === "null" || (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === "null");
}

/** A field's type as the page's language writes it: the JSON type names stay as they are, the words between them are translated. */
export function typeLabel(raw: JsonSchema, doc: OpenApiDocument, words: SectionWords = SECTION_WORDS.en): string {
  const schema = resolve(raw, doc);
  const options = variants(schema);
  if (options) {
    const labels = [...new Set(options.map((o) => typeLabel(o, doc, words)))];
    return labels.join(words.or);
  }
  let label: string;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes("array") || schema.items) label = words.arrayOf(schema.items ? typeLabel(schema.items, doc, words) : words.any);
  else if (types.length > 0) label = types.join(words.or);
  else if (schema.properties || schema.additionalProperties) label = "object";
  else label = words.any;
  if (schema.format && !types.includes("array")) label += ` (${schema.format})`;
  if (schema.nullable && !label.includes("null")) label += `${words.or}null`;
  return label;
}

function constraints(schema: JsonSchema, words: SectionWords): string[] {
  const notes: string[] = [];
  const say = words.notes;
  const { minimum: min, maximum: max } = schema;
  const realMin = min !== undefined && Math.abs(min) < SAFE_INTEGER ? min : undefined;
  const realMax = max !== undefined && Math.abs(max) < SAFE_INTEGER ? max : undefined;
  if (realMin !== undefined && realMax !== undefined) notes.push(say.range(realMin, realMax));
  else if (realMin !== undefined) notes.push(say.atLeast(realMin));
  else if (realMax !== undefined) notes.push(say.atMost(realMax));
  if (schema.minLength !== undefined && schema.maxLength !== undefined) notes.push(say.length(schema.minLength, schema.maxLength));
  else if (schema.maxLength !== undefined) notes.push(say.atMostLength(schema.maxLength));
  else if (schema.minLength !== undefined && schema.minLength > 0) notes.push(say.atLeastLength(schema.minLength));
  if (schema.maxItems !== undefined) notes.push(say.atMostItems(schema.maxItems));
  if (schema.pattern && !schema.format && schema.pattern.length <= 60) notes.push(say.matches(schema.pattern));
  if (schema.enum) notes.push(say.oneOf(schema.enum.map((v) => `\`${String(v)}\``).join(", ")));
  if (schema.default !== undefined) notes.push(say.byDefault(JSON.stringify(schema.default)));
  return notes;
}

function describe(schema: JsonSchema, doc: OpenApiDocument, words: SectionWords): string {
  const own = resolve(schema, doc);
  const inner = variants(own)?.find((v) => !isNull(v));
  const parts = [own.description && words.text(own.description), ...constraints(own, words), ...(inner ? constraints(resolve(inner, doc), words) : [])];
  return parts.filter(Boolean).join(" ");
}

/** The object a field's children hang from: itself, its non-null variant, or its array items. */
function nested(schema: JsonSchema, doc: OpenApiDocument): { schema: JsonSchema; suffix: string } | null {
  const own = resolve(schema, doc);
  const inner = variants(own)?.find((v) => !isNull(v));
  const target = inner ? resolve(inner, doc) : own;
  if (target.properties) return { schema: target, suffix: "." };
  if (target.items) {
    const items = resolve(target.items, doc);
    if (items.properties) return { schema: items, suffix: "[]." };
  }
  return null;
}

export function fieldRows(schema: JsonSchema, doc: OpenApiDocument, prefix = "", words: SectionWords = SECTION_WORDS.en): FieldRow[] {
  const object = resolve(schema, doc);
  const rows: FieldRow[] = [];
  const required = new Set(object.required ?? []);
  for (const [name, property] of Object.entries(object.properties ?? {})) {
    const fullName = `${prefix}${name}`;
    rows.push({ name: fullName, type: typeLabel(property, doc, words), required: required.has(name), description: describe(property, doc, words) });
    const children = nested(property, doc);
    if (children) rows.push(...fieldRows(children.schema, doc, `${fullName}${children.suffix}`, words));
  }
  return rows;
}

function stringExample(schema: JsonSchema, name: string): string {
  const text = `${name} ${schema.description ?? ""}`;
  if (schema.format === "date-time" || /\bAt$|ISO 8601/.test(text)) return "2026-03-01T08:00:00.000Z";
  if (schema.format === "date") return "2026-03-01";
  if (schema.format === "email") return "dev@example.com";
  if (schema.format === "uri" || schema.format === "url") return "https://example.com";
  if (/decimal|amount|balance|price|total/i.test(text)) return "12.50";
  return name || "string";
}

export function exampleValue(raw: JsonSchema, doc: OpenApiDocument, name = ""): unknown {
  const schema = resolve(raw, doc);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const options = variants(schema);
  if (options) {
    const first = options.find((o) => !isNull(o)) ?? options[0];
    return first ? exampleValue(first, doc, name) : null;
  }
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  const type = types[0] ?? (schema.properties ? "object" : schema.items ? "array" : undefined);
  switch (type) {
    case "object": {
      const value: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) value[key] = exampleValue(property, doc, key);
      if (!schema.properties && typeof schema.additionalProperties === "object") {
        value.key = exampleValue(schema.additionalProperties, doc, "value");
      }
      return value;
    }
    case "array":
      return schema.items ? [exampleValue(schema.items, doc, name)] : [];
    case "integer":
    case "number": {
      const min = schema.minimum !== undefined && Math.abs(schema.minimum) < SAFE_INTEGER ? schema.minimum : undefined;
      return Math.max(min ?? 1, 1);
    }
    case "boolean":
      return true;
    case "string":
      return stringExample(schema, name);
    default:
      return null;
  }
}

function fieldTable(rows: FieldRow[], words: SectionWords): string {
  const lines = [words.fieldHeader, "|---|---|---|---|"];
  for (const row of rows) {
    lines.push(`| \`${cell(row.name)}\` | ${cell(row.type)} | ${row.required ? words.yes : words.no} | ${cell(row.description)} |`);
  }
  return lines.join("\n");
}

function schemaSection(schema: JsonSchema, doc: OpenApiDocument, words: SectionWords): string {
  const rows = fieldRows(schema, doc, "", words);
  const parts: string[] = [];
  if (rows.length > 0) parts.push(fieldTable(rows, words));
  else parts.push(`${words.jsonOf(typeLabel(schema, doc, words))} ${describe(schema, doc, words)}`.trim());
  parts.push("```json\n" + JSON.stringify(exampleValue(schema, doc), null, 2) + "\n```");
  return parts.join("\n\n");
}

function parameterTable(title: string, parameters: OpenApiParameter[], doc: OpenApiDocument, words: SectionWords): string {
  const lines = [`**${title}**`, "", words.parameterHeader, "|---|---|---|---|"];
  for (const p of parameters) {
    const schema = p.schema ?? {};
    const description = [p.description && words.text(p.description), describe(schema, doc, words)].filter(Boolean).join(" ");
    lines.push(`| \`${cell(p.name)}\` | ${cell(typeLabel(schema, doc, words))} | ${p.required ? words.yes : words.no} | ${cell(description)} |`);
  }
  return lines.join("\n");
}

function jsonSchemaOf(content: Record<string, { schema?: JsonSchema }> | undefined): { type: string; schema: JsonSchema } | null {
  if (!content) return null;
  const [type, media] = Object.entries(content)[0] ?? [];
  return type && media?.schema ? { type, schema: media.schema } : null;
}

function operationSection(operation: Operation, anchor: string, doc: OpenApiDocument, language: DocsLanguage): string {
  const { method, path, op } = operation;
  const words = SECTION_WORDS[language];
  const parts: string[] = [];
  parts.push(`### ${localTitle(operation, language)} {#${anchor}}`);
  parts.push(`\`${method.toUpperCase()} ${path}\``);
  if (op.description) parts.push(words.text(op.description));
  const bearer = op.security?.some((s) => "bearer" in s);
  parts.push(bearer ? words.signedIn : words.noAuth);
  const byPlace = (place: OpenApiParameter["in"]) => (op.parameters ?? []).filter((p) => p.in === place);
  if (byPlace("path").length) parts.push(parameterTable(words.pathParameters, byPlace("path"), doc, words));
  if (byPlace("query").length) parts.push(parameterTable(words.queryParameters, byPlace("query"), doc, words));
  if (byPlace("header").length) parts.push(parameterTable(words.headers, byPlace("header"), doc, words));
  const body = jsonSchemaOf(op.requestBody?.content);
  if (body) {
    parts.push(`**${words.requestBody}** (\`${body.type}\`${op.requestBody?.required ? words.required : ""})`, schemaSection(body.schema, doc, words));
  }
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const description = response.description && response.description !== "Default Response" ? ` — ${words.text(response.description)}` : "";
    const content = jsonSchemaOf(response.content);
    parts.push(`**${words.response} \`${status}\`**${description}`);
    parts.push(content ? schemaSection(content.schema, doc, words) : words.noJsonBody);
  }
  return parts.join("\n\n");
}

function tagTitle(tag: string): string {
  return (tag.charAt(0).toUpperCase() + tag.slice(1).replace(/[-_]/g, " ")).replace(/\bapi\b/gi, "API");
}

function operationTitle({ method, path, op }: Operation): string {
  return op.summary ?? `${method.toUpperCase()} ${path}`;
}

/** The operation's summary in the page's language; English where no translation is kept (missingTranslations names those). */
function localTitle(operation: Operation, language: DocsLanguage): string {
  const key = `${operation.method.toUpperCase()} ${operation.path}`;
  return (language === "zh-CN" ? SUMMARY_ZH[key] : undefined) ?? operationTitle(operation);
}

/** The routes, groups and descriptions the zh-CN reference shows in English, for want of a translation. */
export function missingTranslations(doc: OpenApiDocument): string[] {
  const missing: string[] = [];
  for (const description of schemaDescriptions(doc)) if (!DESCRIPTION_ZH[description]) missing.push(`description "${description}"`);
  for (const [tag, operations] of apiOperations(doc)) {
    if (!TAG_ZH[tag]) missing.push(`tag ${tag}`);
    for (const { method, path } of operations) if (!SUMMARY_ZH[`${method.toUpperCase()} ${path}`]) missing.push(`${method.toUpperCase()} ${path}`);
  }
  return missing;
}

/** Every description the document's schemas, parameters and operations hold, but fastify's default response's. */
function schemaDescriptions(doc: OpenApiDocument): Set<string> {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== "object") return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "description" && typeof inner === "string") {
        if (inner !== "Default Response") found.add(inner);
      } else walk(inner);
    }
  };
  walk(doc);
  return found;
}

interface Operation {
  method: string;
  path: string;
  op: OpenApiOperation;
}

/** The operations under `/api/`, grouped by their first tag in the order the server registers them. */
export function apiOperations(doc: OpenApiDocument): Map<string, Operation[]> {
  const groups = new Map<string, Operation[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith("/api/")) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "other";
      groups.set(tag, [...(groups.get(tag) ?? []), { method, path, op }]);
    }
  }
  return groups;
}

export function apiReferenceMarkdown(doc: OpenApiDocument, language: DocsLanguage = "en"): string {
  const words = INTRO[language];
  const groups = apiOperations(doc);
  // The ids the renderer will give the headings below, in the same order, so the table can link to them.
  const slugger = new GithubSlugger();
  slugger.slug("Endpoints");
  const anchors = new Map<Operation, string>();
  const tagAnchors = new Map<string, string>();
  for (const [tag, operations] of groups) {
    tagAnchors.set(tag, slugger.slug(tagTitle(tag)));
    for (const operation of operations) anchors.set(operation, slugger.slug(operationTitle(operation)));
  }
  const parts = [
    `# ${words.title}`,
    words.intro,
    words.bullets.join("\n"),
    `## ${words.endpoints} {#endpoints}`,
    [words.header, "|---|---|---|"]
      .concat(
        [...anchors].map(
          ([operation, anchor]) =>
            `| ${operation.method.toUpperCase()} | [\`${cell(operation.path)}\`](#${anchor}) | ${cell(operation.op.summary ? localTitle(operation, language) : "")} |`,
        ),
      )
      .join("\n"),
  ];
  for (const [tag, operations] of groups) {
    const title = (language === "zh-CN" ? TAG_ZH[tag] : undefined) ?? tagTitle(tag);
    parts.push(`## ${title} {#${tagAnchors.get(tag)}}`);
    for (const operation of operations) parts.push(operationSection(operation, anchors.get(operation)!, doc, language));
  }
  return parts.join("\n\n") + "\n";
}
