import { useMemo } from "react";
import { escapeHtml, fillPlaceholders } from "#shared/template";
import { useLanguage, useT, type Language, type MessageKey } from "../../i18n";
import { pageTitle, useDocumentTitle } from "../../lib/page-title";
import { siteIdentityFrom } from "#shared/site-config";
import { useSiteConfig, type LegalIdentity } from "../../lib/site-config";
import type legalMarkdown from "./content/privacy.en.md?html";
import "./legal.css";
import "../../i18n/page-messages";

export type LegalText = typeof legalMarkdown;

/** The legal names as the build's environment gives them: what a prerendered legal page shows until the server's arrive. */
function buildLegalIdentity(siteName: string): LegalIdentity {
  return siteIdentityFrom({
    siteName,
    companyName: import.meta.env.COMPANY_NAME,
    contactEmail: import.meta.env.CONTACT_EMAIL,
    legalEffectiveDate: import.meta.env.LEGAL_EFFECTIVE_DATE,
  });
}

/**
 * A legal page from its Markdown sources (one per language), filled with the operator's names.
 * The content was rendered to HTML at build time; only the placeholders are filled here.
 */
export function LegalDocument({ texts, testId, titleKey }: { texts: Record<Language, LegalText>; testId: string; titleKey: MessageKey }) {
  const t = useT();
  useDocumentTitle(pageTitle(t(titleKey)));
  const language = useLanguage((s) => s.language);
  const config = useSiteConfig();
  const { siteName, companyName, contactEmail, legalEffectiveDate } = { ...buildLegalIdentity(config.siteName), ...config };
  const text = texts[language];
  const filled = useMemo(() => {
    const values = { siteName, companyName, contactEmail, effectiveDate: legalEffectiveDate };
    return {
      title: fillPlaceholders(text.title, values),
      html: fillPlaceholders(text.html, values, escapeHtml),
    };
  }, [text, siteName, companyName, contactEmail, legalEffectiveDate]);
  const sections = text.headings.filter((h) => h.level === 2);

  return (
    <article className="legal-document" data-testid={testId} lang={language}>
      <header className="legal-header">
        <h1>{filled.title}</h1>
        <p className="legal-meta" data-testid="legal-effective-date">
          {t("legal.effective", { date: legalEffectiveDate })} · {t("legal.operator", { company: companyName })}
        </p>
      </header>
      {sections.length > 1 ? (
        <nav className="legal-contents" aria-label={t("legal.contents")}>
          <p className="legal-contents-title">{t("legal.contents")}</p>
          <ul>
            {sections.map((h) => (
              <li key={h.id}>
                <a href={`#${h.id}`}>{h.text}</a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <div className="legal-body" dangerouslySetInnerHTML={{ __html: filled.html }} />
    </article>
  );
}
