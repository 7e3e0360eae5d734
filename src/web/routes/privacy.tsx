import { useT } from "../i18n";

export default function PrivacyPage() {
  const t = useT();
  return (
    <article data-testid="page-privacy">
      <h1>{t("nav.privacy")}</h1>
      <p>{t("pages.comingSoon")}</p>
    </article>
  );
}
