import { useEffect, useState } from "react";
import type { PublicTool } from "#shared/catalog";
import { toolText } from "#shared/tool-text";
import { useLanguage, useT } from "../../i18n";
import { siteConfig } from "../../lib/site-config";

/** Plain fetch, not the shared client: the landing page must stay light, and a failure here leaves the build's prices. */
const fetchCatalog = (): Promise<PublicTool[]> =>
  fetch(`${siteConfig.apiBase}/api/v1/tools`).then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`)))).then((body: { tools: PublicTool[] }) => body.tools);

/** `prerendered`: the build's catalog, shown at once and replaced by the server's current one. */
export function ToolCatalog({ prerendered }: { prerendered: PublicTool[] }) {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const [tools, setTools] = useState<PublicTool[]>(prerendered);
  const [failed, setFailed] = useState(false);
  const [refreshed, setRefreshed] = useState(false);
  useEffect(() => {
    fetchCatalog()
      .then(setTools, () => setFailed(true))
      .finally(() => setRefreshed(true));
  }, []);
  return (
    <section className="catalog" aria-labelledby="catalog-title">
      <h2 id="catalog-title">{t("home.catalogTitle")}</h2>
      {failed && tools.length === 0 ? <p className="muted">{t("home.catalogUnavailable")}</p> : null}
      <ul className="catalog-grid" aria-busy={!refreshed}>
        {tools
          .map((tool) => toolText(tool, language))
          .map((tool) => (
            <li key={tool.id} className="catalog-card" data-testid={`tool-${tool.id}`}>
              <div className="catalog-card-head">
                <h3>{tool.name}</h3>
                <span className="catalog-category">{tool.category}</span>
              </div>
              <p>{tool.description}</p>
              {tool.models?.map((model) => (
                <p key={model.id} className="catalog-price">
                  {t("home.perMillion", { ...model, c: siteConfig.currencySymbol })}
                </p>
              ))}
              <p className="catalog-price">
                {!tool.models && `${siteConfig.currencySymbol}${tool.price} / ${tool.unit ?? t("home.perCall")}`}
                {tool.requiresApproval ? <span className="catalog-approval">{t("home.approvalRequired")}</span> : null}
              </p>
              <a href={`/docs/tools/${tool.id}.html`}>{t("home.toolDocs")}</a>
            </li>
          ))}
      </ul>
    </section>
  );
}
