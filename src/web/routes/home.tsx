import { useLoaderData, useNavigate } from "react-router";
import { useEffect } from "react";
import { t as inCurrentLanguage, useT, type Translate } from "../i18n";
import { useSession } from "../lib/session-store";
import { siteConfig } from "../lib/site-config";
import { ToolCatalog } from "../features/catalog/tool-catalog";

/** Runs at build time only (the page is prerendered): the catalog goes into the HTML, so nothing moves when it refreshes. */
export async function loader() {
  // The one server import of the web app: a prerender loader runs in the build, never in a browser.
  // eslint-disable-next-line no-restricted-syntax
  const { buildTimeCatalog } = await import("../../server/modules/catalog/public-tool");
  // The cards show no example (the console's Try it reads it from the live catalog): kept out of the page's weight.
  return { tools: buildTimeCatalog().map((tool) => ({ ...tool, example: null })) };
}

/** Its tab's title leads with the site's name (not lib/page-title.ts: one chunk less in the landing page's first load). */
const homeTitle = (t: Translate) => `${siteConfig.siteName} — ${t("home.title")}`;

// English when prerendered (the reader's language applies after hydration).
export const meta = () => [{ title: homeTitle(inCurrentLanguage) }];

export default function Home() {
  const t = useT();
  useEffect(() => {
    document.title = homeTitle(t);
  }, [t]);
  const navigate = useNavigate();
  const token = useSession((s) => s.token);
  const openLoginModal = useSession((s) => s.openLoginModal);
  const { tools } = useLoaderData<typeof loader>();
  return (
    <main className="home">
      <section className="hero">
        <h1>{t("home.headline")}</h1>
        <p className="lead">{t("home.lead")}</p>
        <div className="hero-actions">
          <button
            type="button"
            className="button button-primary"
            data-testid="cta"
            onClick={() => (token ? navigate("/console/info") : openLoginModal())}
          >
            {token ? t("home.ctaConsole") : t("home.cta")}
          </button>
          <a className="button" href="/docs.html">
            {t("home.readDocs")}
          </a>
        </div>
      </section>
      <ToolCatalog prerendered={tools} />
      <section className="steps" aria-labelledby="steps-title">
        <h2 id="steps-title">{t("home.stepsTitle")}</h2>
        <ol>
          <li>{t("home.step1")}</li>
          <li>{t("home.step2")}</li>
          <li>{t("home.step3")}</li>
        </ol>
      </section>
    </main>
  );
}
