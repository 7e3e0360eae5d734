import { useEffect, useState } from "react";
import { CARD_SLOTS, CATALOG_CARDS_ID, type CatalogCards } from "#shared/catalog-card";
import { useLanguage, useT } from "../../i18n";

/** The cards the server wrote into a landing page's HTML from its catalog, in each language (server/modules/site-pages/landing.ts). */
const cardsIn = (page: Document): Partial<CatalogCards> | null => JSON.parse(page.getElementById(CATALOG_CARDS_ID)?.textContent || "null") as Partial<CatalogCards> | null;

/** This document's cards; while prerendering, one card of slots the server fills per tool. */
let pageCards = import.meta.env.SSR ? { en: [CARD_SLOTS] } : cardsIn(document);

export function ToolCatalog() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const [cards, setCards] = useState(pageCards);
  useEffect(() => {
    // Reached in the app from another page, whose document has no cards: the landing page's HTML has them.
    if (!cards)
      fetch("/")
        .then((response) => response.text())
        .then((html) => setCards((pageCards = cardsIn(new DOMParser().parseFromString(html, "text/html")))))
        .catch(() => undefined);
  }, [cards]);
  return (
    <section className="catalog" aria-labelledby="catalog-title">
      <h2 id="catalog-title">{t("home.catalogTitle")}</h2>
      <ul className="catalog-grid">
        {(cards?.[language] ?? cards?.en ?? []).map((card) => (
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
            {/* Shown by the stylesheet once the header shows a signed-in account: no script of its own. */}
            <a href={`/console/api-keys?try=${card.id}`} className="catalog-try">
              {t("home.tryIt")}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
