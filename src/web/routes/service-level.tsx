import en from "../features/legal/content/service-level.en.md?html";
import zhCN from "../features/legal/content/service-level.zh-CN.md?html";
import { LegalDocument } from "../features/legal/legal-document";
import { translate } from "../i18n";
import { siteConfig } from "../lib/site-config";

export function meta() {
  return [{ title: `${translate("en", "nav.serviceLevel")} — ${siteConfig.siteName}` }];
}

export default function ServiceLevelPage() {
  return <LegalDocument texts={{ en, "zh-CN": zhCN }} testId="page-service-level" />;
}
