/**
 * The public pages' loader (scripts/public-pages.ts) loads the app only after the first paint and
 * keeps, meanwhile, the clicks on buttons and the changes of selects, which have no handlers until
 * React has hydrated (decision 040). It leaves a function under this name on `window`.
 */
export const EARLY_INPUT_GLOBAL = "__tollgateEarlyInput";

/** Once hydrated: stops keeping input and replays what was kept on the same elements, now React's. */
export function replayEarlyInput(): void {
  const replay = (window as unknown as Record<string, unknown>)[EARLY_INPUT_GLOBAL];
  if (typeof replay === "function") (replay as () => void)();
}
