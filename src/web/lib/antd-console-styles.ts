import hrefs from "virtual:antd-console-css";

let applied: Promise<boolean> | undefined;

/** Links one part and resolves when it has loaded (true) or failed (false). */
function linkPart(url: string, before: Element | null): Promise<{ link: HTMLLinkElement; loaded: boolean }> {
  return new Promise((resolve) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = url;
    link.onload = () => resolve({ link, loaded: true });
    link.onerror = () => resolve({ link, loaded: false });
    document.head.insertBefore(link, before);
    // A part the page preloaded is parsed right here; reading a style now also builds its rules'
    // index here, in this task, instead of in the next style update with every other part's.
    getComputedStyle(document.documentElement).getPropertyValue("color");
  });
}

/**
 * Links the console's antd stylesheet (decision 034) and resolves once it applies: true, and the
 * console runs antd without generating styles; false in development or if a part did not load, and
 * antd generates them at run time as before. The sheet comes in parts (decision 039), linked one
 * after the other, each once the one before has loaded: the browser parses a part as it is linked,
 * so each is parsed in a task of its own instead of all in one long task. They go before the site's
 * stylesheets, where antd's run-time styles go, so the site's rules still win where they are as
 * specific as antd's.
 */
export function applyAntdConsoleStyles(): Promise<boolean> {
  const urls = hrefs;
  if (!urls || urls.length === 0 || typeof document === "undefined") return Promise.resolve(false);
  applied ??= (async () => {
    const before = document.head.querySelector('link[rel="stylesheet"], style');
    // Every part downloads at once (a console page's loader preloads them once the frame is painted,
    // decision 042; reached in the app from another page, they are preloaded here), however long
    // the linking one by one takes.
    for (const url of urls) {
      if (document.head.querySelector(`link[href="${url}"]`)) continue;
      const preload = document.createElement("link");
      preload.rel = "preload";
      preload.as = "style";
      preload.href = url;
      document.head.appendChild(preload);
    }
    const links: HTMLLinkElement[] = [];
    for (const url of urls) {
      const { link, loaded } = await linkPart(url, before);
      links.push(link);
      if (!loaded) {
        for (const l of links) l.remove();
        return false;
      }
    }
    return true;
  })();
  return applied;
}
