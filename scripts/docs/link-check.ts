/**
 * Crawls the site from some pages and reports every internal link that does not resolve:
 * a page that does not answer 200 (after redirects), or an `#anchor` the target page lacks.
 * Pages under the crawl prefixes are crawled further; other internal pages are only checked.
 */
export interface FetchedPage {
  status: number;
  location?: string;
  contentType: string;
  body: string;
}

export type FetchPage = (path: string) => Promise<FetchedPage>;

export interface BrokenLink {
  from: string;
  href: string;
  problem: string;
}

const ORIGIN = "http://site.invalid";
const MAX_REDIRECTS = 5;

function decodeEntities(value: string): string {
  return value.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
}

/** Every address a page refers to; an `expect` link names what the first paint waits for, not a place. */
export function linksOf(html: string): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(/<(?:a|link|script|img)\b[^>]*?\s(?:href|src)="([^"]*)"[^>]*>/gi)) {
    if (/\srel="expect"/i.test(match[0])) continue;
    links.push(decodeEntities(match[1]!));
  }
  return links;
}

export function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((m) => decodeEntities(m[1]!)));
}

export async function checkLinks(fetchPage: FetchPage, start: string[], crawlPrefixes: string[]): Promise<{ broken: BrokenLink[]; checked: string[] }> {
  const pages = new Map<string, { final: string; page: FetchedPage } | { error: string }>();
  const load = async (path: string) => {
    const known = pages.get(path);
    if (known) return known;
    let current = path;
    let result: { final: string; page: FetchedPage } | { error: string } = { error: "too many redirects" };
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const page = await fetchPage(current);
      if ((page.status === 301 || page.status === 302) && page.location) {
        const next = new URL(page.location, ORIGIN + current);
        current = next.pathname + next.search;
        continue;
      }
      result = page.status === 200 ? { final: current, page } : { error: `answered ${page.status}` };
      break;
    }
    pages.set(path, result);
    return result;
  };

  const broken: BrokenLink[] = [];
  const queue = [...start];
  const crawled = new Set<string>();
  while (queue.length > 0) {
    const from = queue.shift()!;
    if (crawled.has(from)) continue;
    crawled.add(from);
    const loaded = await load(from);
    if ("error" in loaded) {
      broken.push({ from, href: from, problem: loaded.error });
      continue;
    }
    for (const href of linksOf(loaded.page.body)) {
      const url = new URL(href, ORIGIN + loaded.final);
      if (url.origin !== ORIGIN) continue;
      const path = url.pathname + url.search;
      const target = await load(path);
      if ("error" in target) {
        broken.push({ from, href, problem: target.error });
        continue;
      }
      const fragment = decodeURIComponent(url.hash.slice(1));
      if (fragment && !idsOf(target.page.body).has(fragment)) broken.push({ from, href, problem: `no element with id "${fragment}"` });
      const isHtml = target.page.contentType.startsWith("text/html");
      if (isHtml && crawlPrefixes.some((prefix) => target.final.startsWith(prefix))) queue.push(target.final);
    }
  }
  return { broken, checked: [...pages.keys()] };
}
