import { useT } from "../i18n";
import { SiteFooter, SiteHeader } from "./site-chrome";
import "../i18n/page-messages";

function Shell({ title, text, testId }: { title: string; text: string; testId: string }) {
  const t = useT();
  return (
    <div className="page">
      <SiteHeader />
      <main className="error-page" data-testid={testId}>
        <h1>{title}</h1>
        <p>{text}</p>
        {/* A document navigation: after an error the client state may be what broke. */}
        <a className="button" href="/">
          {t("pages.backHome")}
        </a>
      </main>
      <SiteFooter />
    </div>
  );
}

/** What the root's error boundary shows (loaded only then): the 404 page or the error page. */
export default function RouteErrorPage({ notFound }: { notFound: boolean }) {
  const t = useT();
  return notFound ? (
    <Shell title={t("pages.notFoundTitle")} text={t("pages.notFound")} testId="not-found-page" />
  ) : (
    <Shell title={t("pages.errorTitle")} text={t("pages.error")} testId="error-page" />
  );
}
