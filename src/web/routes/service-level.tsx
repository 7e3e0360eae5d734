import { useT } from "../i18n";

export default function ServiceLevelPage() {
  const t = useT();
  return (
    <article data-testid="page-service-level">
      <h1>{t("nav.serviceLevel")}</h1>
      <p>{t("pages.comingSoon")}</p>
    </article>
  );
}
