import { CARD_SLOTS, CATALOG_CARDS_ID, type CatalogCards } from "#shared/catalog-card";
import { useLanguage, useT } from "../../i18n";

/**
 * The cards the server wrote into the page from its catalog at start-up, in each language
 * (server/modules/site-pages/landing.ts); while prerendering, one card of slots it fills per tool.
 */
function pageCards(): Partial<CatalogCards> {
  if (import.meta.env.SSR) return { en: [CARD_SLOTS] };
  try {
    return JSON.parse(document.getElementById(CATALOG_CARDS_ID)?.textContent ?? "{}") as Partial<CatalogCards>;
  } catch {
    return {};
  }
}

const cards = pageCards();

export function ToolCatalog() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  return (
    <section className="catalog" aria-labelledby="catalog-title">
      <h2 id="catalog-title">{t("home.catalogTitle")}</h2>
      <ul className="catalog-grid">
        {(cards[language] ?? cards.en ?? []).map((card) => (
          <li key={card.id} className="catalog-card" data-testid={`tool-${card.id}`}>
            <div className="catalog-card-head">
              <h3>{card.name}</h3>
              <span className="catalog-category">{card.category}</span>
            </div>
            <p>{card.description}</p>
            <p className="catalog-price">
              {card.price}
              <span className="catalog-approval">{card.approval}</span>
            </p>
            <a href={`/docs/tools/${card.id}.html`}>{t("home.toolDocs")}</a>
          </li>
        ))}
      </ul>
    </section>
  );
}
