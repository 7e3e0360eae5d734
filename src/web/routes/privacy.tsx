import en from "../features/legal/content/privacy.en.md?html";
import zhCN from "../features/legal/content/privacy.zh-CN.md?html";
import { LegalDocument } from "../features/legal/legal-document";
import { titleMeta } from "../lib/page-title";

export const meta = titleMeta("nav.privacy");

export default function PrivacyPage() {
  return <LegalDocument texts={{ en, "zh-CN": zhCN }} testId="page-privacy" titleKey="nav.privacy" />;
}
