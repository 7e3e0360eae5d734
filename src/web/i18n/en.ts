import { enConsole } from "./en-console";
import { enPages } from "./en-pages";
import { enSite } from "./en-site";

/** English: SPEC.md's strings verbatim, in parts so that each page loads only its own (en-site in every first load; en-pages and en-console with the pages that show them). Every key here must exist in zh-CN (a test checks). */
export const en = {
  ...enSite,
  ...enConsole,
  legal: enPages.legal,
  nav: { ...enSite.nav, ...enConsole.nav },
  pages: { ...enPages.pages, ...enConsole.pages },
} as const;

type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type Messages = Widen<typeof en>;
