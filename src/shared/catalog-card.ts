/**
 * A tool's card on the landing page in each of the site's languages. The server computes the
 * cards once at start-up from its catalog (server/modules/site-pages/landing.ts) and writes them
 * into the page, both as HTML (English, as the page is prerendered) and as JSON for the app,
 * which shows the reader's language from it: no catalog request, and no price formatting in the
 * landing page's JavaScript.
 */
import type { PublicTool } from "./catalog";
import { slot } from "./page-slots";
import { planLines } from "./plan-lines";
import { toolText } from "./tool-text";

export const CARD_LANGUAGES = ["en", "zh-CN"] as const;
export type CardLanguage = (typeof CARD_LANGUAGES)[number];

export interface CatalogCard {
  id: string;
  name: string;
  category: string;
  description: string;
  /** One line per price: the price per call or unit, or one line per model of an LLM tool; then its tiers, free quota and packages. */
  price: string;
  /** The approval note, empty for a tool open to every account. */
  approval: string;
}

export type CatalogCards = Record<CardLanguage, CatalogCard[]>;

/** The id of the page's JSON element that holds the cards. */
export const CATALOG_CARDS_ID = "tool-catalog";

/** The card the build prerenders: every field a slot the server fills per tool. */
export const CARD_SLOTS: CatalogCard = {
  id: slot("id"),
  name: slot("name"),
  category: slot("category"),
  description: slot("description"),
  price: slot("price"),
  approval: slot("approval"),
};

const WORDS: Record<CardLanguage, { perCall: string; perMillion: (model: NonNullable<PublicTool["models"]>[number], c: string) => string; approval: string }> = {
  en: {
    perCall: "call",
    perMillion: (m, c) => `${m.id}: ${c}${m.input} / 1M input tokens, ${c}${m.output} / 1M output tokens`,
    approval: "approval required",
  },
  "zh-CN": {
    perCall: "次",
    perMillion: (m, c) => `${m.id}：输入 ${c}${m.input} / 百万 tokens，输出 ${c}${m.output} / 百万 tokens`,
    approval: "需申请开通",
  },
};

export function catalogCard(tool: PublicTool, language: CardLanguage, currency: string): CatalogCard {
  const words = WORDS[language];
  const text = toolText(tool, language);
  return {
    id: tool.id,
    name: text.name,
    category: text.category,
    description: text.description,
    price: (tool.models
      ? tool.models.map((model) => words.perMillion(model, currency))
      : planLines(tool, language, currency, text.unit, (amount) => `${amount} / ${text.unit ?? words.perCall}`)
    ).join("\n"),
    approval: tool.requiresApproval ? words.approval : "",
  };
}

export function catalogCards(tools: readonly PublicTool[], currency: string): CatalogCards {
  return Object.fromEntries(CARD_LANGUAGES.map((language) => [language, tools.map((tool) => catalogCard(tool, language, currency))])) as CatalogCards;
}
