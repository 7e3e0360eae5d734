/**
 * The docs' languages: English at `/docs/…`, Simplified Chinese at `/docs/zh-CN/…`, each page
 * beside its twin, with the words of the page frame and the generated pages in each.
 */
export const DOCS_LANGUAGES = ["en", "zh-CN"] as const;
export type DocsLanguage = (typeof DOCS_LANGUAGES)[number];

/** Where a language's hand-written pages are, under docs/site. */
export function sourceFolder(language: DocsLanguage): string {
  return language === "en" ? "" : language;
}

export function docsHref(slug: string, language: DocsLanguage = "en"): string {
  const base = language === "en" ? "/docs" : `/docs/${language}`;
  return slug === "index" ? `${base}.html` : `${base}/${slug}.html`;
}

export interface DocsStrings {
  /** The language's own name, on the link to it. */
  name: string;
  sections: { start: string; guides: string; tools: string; reference: string };
  navTitles: Record<string, string>;
  docsTitle: (title: string, site: string) => string;
  description: (title: string, site: string) => string;
  onThisPage: string;
  previous: string;
  next: string;
  pager: string;
  documentation: string;
  docs: string;
  console: string;
  getKey: string;
  userAgreement: string;
  privacy: string;
  serviceLevel: string;
  otherLanguage: string;
  headingLink: string;
  tool: {
    perUnit: (price: string, unit: string | null) => string;
    /** An LLM model's price per 1M tokens of one direction. */
    perMillion: (price: string, direction: "input" | "cachedInput" | "output") => string;
    /** Between a model's input and output prices, and between models: the language's own comma and semicolon. */
    priceSeparators: { directions: string; models: string };
    /** `intro` is given the output tokens held for a request that sets no cap (the tool's `defaultMaxOutputTokens`). */
    models: { title: string; header: string; intro: (defaultOutputCap: string) => string; exampleIntro: string };
    needsApproval: string;
    open: string;
    facts: { id: string; call: string; baseUrl: string; price: string; chargedNote: string; rateLimit: string; perMinute: (n: string) => string; access: string; provider: string; builtIn: string; upstream: string; category: string };
    keyNote: string;
    /** A link to the console's Try it with the tool chosen. */
    tryIt: (toolId: string) => string;
    genericExample: string;
    example: string;
    overviewTitle: string;
    overviewIntro: string;
    overviewHeader: string;
    openAccess: string;
    needsApprovalShort: string;
  };
}

export const DOCS_STRINGS: Record<DocsLanguage, DocsStrings> = {
  en: {
    name: "English",
    sections: { start: "Get started", guides: "Guides", tools: "Tools", reference: "Reference" },
    navTitles: { index: "Overview", tools: "All tools", api: "Console API" },
    docsTitle: (title, site) => `${title} — ${site} docs`,
    description: (title, site) => `${title}: ${site} developer documentation`,
    onThisPage: "On this page",
    previous: "Previous",
    next: "Next",
    pager: "Previous and next page",
    documentation: "Documentation",
    docs: "Docs",
    console: "Console",
    getKey: "Get an API key",
    userAgreement: "User Agreement",
    privacy: "Privacy Agreement",
    serviceLevel: "Service Level Agreement",
    otherLanguage: "Language",
    headingLink: "Link to this section",
    tool: {
      perUnit: (price, unit) => `${price} per ${unit ?? "call"}`,
      perMillion: (price, direction) => `${price} / 1M ${{ input: "input", cachedInput: "cached input", output: "output" }[direction]} tokens`,
      priceSeparators: { directions: ", ", models: "; " },
      models: {
        title: "Models and prices",
        header: "| Model | Input | Cached input | Output |",
        intro: (defaultOutputCap) =>
          "This tool speaks the OpenAI API: point an OpenAI SDK's base URL at `{{gatewayBase}}/{{toolId}}` and use your API key as its key. " +
          "`POST /chat/completions`, `POST /responses` and `POST /embeddings` are charged the input and output tokens of the model the request names, at the prices below (per 1M tokens); `GET /models` is free. " +
          "The tokens come from the provider's usage report, or, when it sends none, are counted by {{siteName}} with the model's tokenizer, as billing details show. " +
          `Before the call, its most possible cost is held: the request's size as input tokens plus \`max_tokens\` (or \`max_completion_tokens\`, \`max_output_tokens\`) as output tokens, or ${defaultOutputCap} output tokens when the request sets none; set \`max_tokens\` to hold less.`,
        exampleIntro: "With the official `openai` package for Node.js, at its defaults, streamed and not:",
      },
      needsApproval: "Needs approval: [apply in the console](/console/apply), then call it with any of your keys.",
      open: "Open to every account.",
      facts: {
        id: "Tool id",
        call: "Call",
        baseUrl: "OpenAI SDK base URL",
        price: "Price",
        chargedNote: "only successful calls are charged",
        rateLimit: "Rate limit",
        perMinute: (n) => `${n} calls per minute per API key`,
        access: "Access",
        provider: "Provided by",
        builtIn: "{{siteName}} (built in)",
        upstream: "an upstream provider",
        category: "Category",
      },
      keyNote:
        "Send your API key as `Authorization: Bearer <API key>` ([authentication](../authentication.md#api-keys)). " +
        "A refused or failed call answers with `{\"error\": {\"code\", \"message\"}}` and is free; see [gateway errors](../errors.md#gateway-errors).",
      tryIt: (toolId) => `[Try it in the console](/console/api-keys?try=${toolId}) with one of your keys: the price before the call, what it cost and your balance after, and the call as code.`,
      genericExample: "The request and response formats of this tool are defined by its provider; the body you send is passed on as it is.",
      example: "Example",
      overviewTitle: "Tools",
      overviewIntro:
        "Every tool is called at `{{gatewayBase}}/<tool id>` with your API key, with the method its page shows (`POST` for most). Prices are in the site currency; only successful calls are charged.",
      overviewHeader: "| Tool | What it does | Price | Access |",
      openAccess: "open",
      needsApprovalShort: "needs approval",
    },
  },
  "zh-CN": {
    name: "简体中文",
    sections: { start: "入门", guides: "指南", tools: "工具", reference: "参考" },
    navTitles: { index: "概览", tools: "全部工具", api: "控制台 API" },
    docsTitle: (title, site) => `${title} — ${site} 文档`,
    description: (title, site) => `${title}：${site} 开发者文档`,
    onThisPage: "本页内容",
    previous: "上一页",
    next: "下一页",
    pager: "上一页和下一页",
    documentation: "文档目录",
    docs: "文档",
    console: "控制台",
    getKey: "获取 API 密钥",
    userAgreement: "用户协议",
    privacy: "隐私协议",
    serviceLevel: "服务等级协议",
    otherLanguage: "语言",
    headingLink: "链接到本节",
    tool: {
      perUnit: (price, unit) => `${price}/${unit ?? "次"}`,
      perMillion: (price, direction) => `${{ input: "输入", cachedInput: "缓存输入", output: "输出" }[direction]} ${price} / 百万 tokens`,
      priceSeparators: { directions: "，", models: "；" },
      models: {
        title: "模型与价格",
        header: "| 模型 | 输入 | 缓存输入 | 输出 |",
        intro: (defaultOutputCap) =>
          "本工具使用 OpenAI API 协议：把 OpenAI SDK 的 base URL 设为 `{{gatewayBase}}/{{toolId}}`，并以您的 API 密钥作为其密钥。" +
          "`POST /chat/completions`、`POST /responses` 和 `POST /embeddings` 按请求所指定模型的输入和输出 token 数，以下表价格（每百万 tokens）扣费；`GET /models` 免费。" +
          "token 数来自服务商报告的用量；服务商未报告时，由 {{siteName}} 用该模型的分词器计数，消费明细中会注明。" +
          `调用前会预扣其可能的最高费用：请求的大小按输入 tokens 计，加上 \`max_tokens\`（或 \`max_completion_tokens\`、\`max_output_tokens\`）按输出 tokens 计，请求未设置时按 ${defaultOutputCap} 个输出 tokens 计；设置 \`max_tokens\` 可以减少预扣。`,
        exampleIntro: "使用 Node.js 官方 `openai` 包，保持其默认设置，流式与非流式：",
      },
      needsApproval: "需要审批：请先[在控制台申请](/console/apply)，获批后可用您的任意 API 密钥调用。",
      open: "所有账户均可调用。",
      facts: {
        id: "工具 ID",
        call: "调用地址",
        baseUrl: "OpenAI SDK 的 base URL",
        price: "价格",
        chargedNote: "仅成功的调用计费",
        rateLimit: "速率限制",
        perMinute: (n) => `每个 API 密钥每分钟 ${n} 次调用`,
        access: "权限",
        provider: "提供方",
        builtIn: "{{siteName}}（内置）",
        upstream: "上游服务商",
        category: "分类",
      },
      keyNote:
        "请以 `Authorization: Bearer <API key>` 的形式发送您的 API 密钥（见[认证](../authentication.md#api-keys)）。" +
        "被拒绝或失败的调用返回 `{\"error\": {\"code\", \"message\"}}`，不收取费用；见[网关错误](../errors.md#gateway-errors)。",
      tryIt: (toolId) => `[在控制台试用](/console/api-keys?try=${toolId})：用您的一个密钥调用，调用前显示价格，调用后显示费用和余额，并给出调用代码。`,
      genericExample: "本工具的请求和响应格式由其提供方定义；您发送的请求体会原样转发。",
      example: "示例",
      overviewTitle: "工具",
      overviewIntro:
        "每个工具都通过 `{{gatewayBase}}/<tool id>` 调用，使用您的 API 密钥和工具页面所示的请求方法（大多为 `POST`）。价格以站点货币计；仅成功的调用计费。",
      overviewHeader: "| 工具 | 功能 | 价格 | 权限 |",
      openAccess: "开放",
      needsApprovalShort: "需要审批",
    },
  },
};
