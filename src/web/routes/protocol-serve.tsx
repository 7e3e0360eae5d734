import en from "../features/legal/content/protocol-serve.en.md?html";
import zhCN from "../features/legal/content/protocol-serve.zh-CN.md?html";
import { LegalDocument } from "../features/legal/legal-document";
import { translate } from "../i18n";
import { siteConfig } from "../lib/site-config";

export function meta() {
  return [{ title: `${translate("en", "nav.userAgreement")} — ${siteConfig.siteName}` }];
}

export default function ProtocolServePage() {
  return <LegalDocument texts={{ en, "zh-CN": zhCN }} testId="page-protocol-serve" />;
}
