import { useCallback } from "react";
import { create } from "zustand";
import { loadChunk } from "../lib/chunk-reload";
import type { Messages } from "./en";
import { enSite } from "./en-site";

export const LANGUAGES = [
  { code: "en", label: "English" },
  { code: "zh-CN", label: "简体中文" },
] as const;
export type Language = (typeof LANGUAGES)[number]["code"];

type Paths<T> = { [K in keyof T & string]: T[K] extends string ? K : `${K}.${Paths<T[K]>}` }[keyof T & string];
export type MessageKey = Paths<Messages>;
/** Some of a catalogue's namespaces, each with some of its messages. */
type CatalogPart = { [K in keyof Messages]?: Partial<Messages[K]> };
export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

/**
 * The public pages' English is in every first load and the console's joins it with the console
 * (./console-messages.ts); other catalogues load whole when a reader picks them.
 */
const catalogs: Partial<Record<Language, CatalogPart>> = { en: enSite };
const loaders: Record<Exclude<Language, "en">, () => Promise<Messages>> = {
  "zh-CN": () => loadChunk(() => import("./zh-CN")).then((m) => m.zhCN),
};
const LANGUAGE_KEY = "lang";

/** Pages are prerendered in English; the reader's language is applied after hydration. */
export const useLanguage = create<{ language: Language }>()(() => ({ language: "en" }));

export function translate(language: Language, key: MessageKey, vars?: Record<string, string | number>): string {
  let node: unknown = catalogs[language] ?? catalogs.en;
  for (const part of key.split(".")) node = (node as Record<string, unknown> | undefined)?.[part];
  const text = typeof node === "string" ? node : key;
  return vars ? text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(vars[name] ?? "")) : text;
}

/** For code outside React (toasts from the HTTP client). */
export const t: Translate = (key, vars) => translate(useLanguage.getState().language, key, vars);

export function useT(): Translate {
  const language = useLanguage((s) => s.language);
  return useCallback<Translate>((key, vars) => translate(language, key, vars), [language]);
}

/**
 * The language chosen on the site, else the browser's. An address under /docs/zh-CN, which only a
 * link in Chinese leads to, is Chinese without a choice, as the docs pages keep it (their
 * LANGUAGE_SCRIPT in src/server/modules/site-pages/docs-frame.ts): the app shows one only as a 404.
 */
export function preferredLanguage(): Language {
  try {
    const chosen = window.localStorage.getItem(LANGUAGE_KEY);
    if (chosen === "en" || chosen === "zh-CN") return chosen;
  } catch {
    /* storage disabled */
  }
  const path = window.location.pathname;
  if (path === "/docs/zh-CN.html" || path.startsWith("/docs/zh-CN/")) return "zh-CN";
  const first = navigator.languages[0] ?? navigator.language ?? "en";
  return first.toLowerCase().startsWith("zh") ? "zh-CN" : "en";
}

/** Switches the pages to `language` once its catalogue is loaded (English until then). */
let latestLanguageChoice = 0;

export async function applyLanguage(language: Language, remember = false): Promise<void> {
  const choice = ++latestLanguageChoice;
  if (remember) {
    try {
      window.localStorage.setItem(LANGUAGE_KEY, language);
    } catch {
      /* storage disabled */
    }
  }
  if (language !== "en" && !catalogs[language]) catalogs[language] = await loaders[language]();
  // A later choice, applied while this one's catalogue loaded, stands.
  if (choice !== latestLanguageChoice) return;
  document.documentElement.lang = language;
  useLanguage.setState({ language });
}

/** Adds a part of a catalogue, for the code that shows it to load with it. */
export function addMessages(language: Language, messages: CatalogPart): void {
  const catalog: Record<string, object | undefined> = { ...catalogs[language] };
  for (const [namespace, part] of Object.entries(messages)) catalog[namespace] = { ...catalog[namespace], ...part };
  catalogs[language] = catalog as CatalogPart;
}
