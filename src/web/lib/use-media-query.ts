import { useSyncExternalStore } from "react";

/**
 * Below antd's md breakpoint (768 px): the console's menu folds into a drawer (layouts/default.tsx,
 * app.css) and its tables put what matters first.
 */
export const PHONE_SCREEN = "(max-width: 767.98px)";

/**
 * Whether `query` matches, right from the first render (read from window.matchMedia) and again
 * whenever it changes. antd's Grid.useBreakpoint answers {} on its first render and the real
 * breakpoints from a layout effect, rendering its component a second time at every mount.
 */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}
