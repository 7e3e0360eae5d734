import en from "../features/legal/content/privacy.en.md?html";
import zhCN from "../features/legal/content/privacy.zh-CN.md?html";
import { LegalDocument } from "../features/legal/legal-document";
import { translate } from "../i18n";
import { siteConfig } from "../lib/site-config";

export function meta() {
  return [{ title: `${translate("en", "nav.privacy")} — ${siteConfig.siteName}` }];
}

export default function PrivacyPage() {
  return <LegalDocument texts={{ en, "zh-CN": zhCN }} testId="page-privacy" />;
}
