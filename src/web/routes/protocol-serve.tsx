import { useT } from "../i18n";

export default function ProtocolServePage() {
  const t = useT();
  return (
    <article data-testid="page-protocol-serve">
      <h1>{t("nav.userAgreement")}</h1>
      <p>{t("pages.comingSoon")}</p>
    </article>
  );
}
