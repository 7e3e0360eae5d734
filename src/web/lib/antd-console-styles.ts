import href from "virtual:antd-console-css";

let applied: Promise<boolean> | undefined;

/**
 * Links the console's antd stylesheet (decision 034) and resolves once it applies: true, and the
 * console runs antd without generating styles; false in development or if the sheet did not load,
 * and antd generates them at run time as before. It goes before the site's stylesheets, where
 * antd's run-time styles go, so the site's rules still win where they are as specific as antd's.
 */
export function applyAntdConsoleStyles(): Promise<boolean> {
  const url = href;
  if (!url || typeof document === "undefined") return Promise.resolve(false);
  applied ??= new Promise((resolve) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = url;
    link.onload = () => resolve(true);
    link.onerror = () => {
      link.remove();
      resolve(false);
    };
    document.head.insertBefore(link, document.head.querySelector('link[rel="stylesheet"], style'));
  });
  return applied;
}
