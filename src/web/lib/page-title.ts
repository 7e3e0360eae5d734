import { useEffect } from "react";
import { translate, type MessageKey } from "../i18n";
import { siteConfig } from "./site-config";

/** A page's tab title: its name, then the site's. */
export const pageTitle = (name: string) => `${name} — ${siteConfig.siteName}`;

/** A prerendered route's `meta`: the English title its HTML carries (the page then follows the language). */
export const titleMeta = (name: MessageKey) => () => [{ title: pageTitle(translate("en", name)) }];

/**
 * Names the tab in the reader's language. Console pages, served from the SPA fallback, keep its
 * <title> element, renamed here: a title in their `meta` would be a second element beside it.
 */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
