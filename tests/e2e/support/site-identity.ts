import fs from "node:fs";
import { parseEnv } from "node:util";

/** The operator the end-to-end server is configured with, which the legal pages must name (site-identity.env). */
const values = parseEnv(fs.readFileSync(new URL("./site-identity.env", import.meta.url), "utf8"));

export const E2E_SITE_IDENTITY = {
  COMPANY_NAME: values.COMPANY_NAME!,
  CONTACT_EMAIL: values.CONTACT_EMAIL!,
  LEGAL_EFFECTIVE_DATE: values.LEGAL_EFFECTIVE_DATE!,
};
