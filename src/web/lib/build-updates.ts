import { siteConfig } from "./site-config";

export const BUILD_ID: string = __BUILD_ID__;
export const LATEST_BUILD_URL = "/builds/latest.json";

let newerBuildSeen = false;

/** True once the server has announced a build other than the one this tab runs. */
export function newerBuildAvailable(): boolean {
  return newerBuildSeen;
}

export async function checkForNewBuild(): Promise<boolean> {
  try {
    const response = await fetch(LATEST_BUILD_URL, { cache: "no-store" });
    if (!response.ok) return newerBuildSeen;
    const latest = (await response.json()) as { id?: unknown };
    if (typeof latest.id === "string" && latest.id !== BUILD_ID) newerBuildSeen = true;
  } catch {
    /* offline or server restarting: try again on the next tick */
  }
  return newerBuildSeen;
}

/** Polls builds/latest.json on a timer and whenever the tab becomes visible; returns a stop function. */
export function watchForNewBuilds(intervalSeconds = siteConfig.buildPollSeconds): () => void {
  const timer = window.setInterval(() => void checkForNewBuild(), intervalSeconds * 1000);
  const onVisible = () => {
    if (document.visibilityState === "visible") void checkForNewBuild();
  };
  document.addEventListener("visibilitychange", onVisible);
  return () => {
    window.clearInterval(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}
