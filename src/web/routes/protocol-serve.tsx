import en from "../features/legal/content/protocol-serve.en.md?html";
import zhCN from "../features/legal/content/protocol-serve.zh-CN.md?html";
import { LegalDocument } from "../features/legal/legal-document";
import { titleMeta } from "../lib/page-title";

export const meta = titleMeta("nav.userAgreement");

export default function ProtocolServePage() {
  return <LegalDocument texts={{ en, "zh-CN": zhCN }} testId="page-protocol-serve" titleKey="nav.userAgreement" />;
}
