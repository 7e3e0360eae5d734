/**
 * The landing page's catalog, written into the prerendered page at start-up from the server's
 * catalog: the build prerenders one card of slots (src/web/features/catalog/tool-catalog.tsx),
 * filled here once per tool in English as the page is prerendered, and the cards in every
 * language go into the head as JSON, from which the app hydrates and shows the reader's language.
 */
import { CATALOG_CARDS_ID, catalogCards, type CatalogCard } from "#shared/catalog-card";
import type { PublicTool } from "#shared/catalog";
import { repeatElement } from "#shared/page-slots";
import { CURRENCY_SYMBOL } from "#shared/site-config";
import { escapeHtml } from "#shared/template";

const escapeCard = (card: CatalogCard): Record<string, string> => Object.fromEntries(Object.entries(card).map(([field, text]) => [field, escapeHtml(text)]));

/** JSON that cannot end its <script> element early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export function withCatalog(html: string, tools: readonly PublicTool[]): string {
  const cards = catalogCards(tools, CURRENCY_SYMBOL);
  return repeatElement(html, "li", "id", cards.en.map(escapeCard)).replace(
    /<head>/i,
    (head) => `${head}<script type="application/json" id="${CATALOG_CARDS_ID}">${scriptJson(cards)}</script>`,
  );
}
