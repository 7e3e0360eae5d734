/** The operator the end-to-end server is configured with, which the legal pages must name. */
export const E2E_SITE_IDENTITY = {
  COMPANY_NAME: "Lanting Data Services Co., Ltd.",
  CONTACT_EMAIL: "legal@lanting.example",
  LEGAL_EFFECTIVE_DATE: "2026-02-01",
} as const;
