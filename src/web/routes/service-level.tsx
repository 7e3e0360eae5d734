import en from "../features/legal/content/service-level.en.md?html";
import zhCN from "../features/legal/content/service-level.zh-CN.md?html";
import { LegalDocument } from "../features/legal/legal-document";
import { titleMeta } from "../lib/page-title";

export const meta = titleMeta("nav.serviceLevel");

export default function ServiceLevelPage() {
  return <LegalDocument texts={{ en, "zh-CN": zhCN }} testId="page-service-level" titleKey="nav.serviceLevel" />;
}
