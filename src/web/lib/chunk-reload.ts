/** SPEC.md §4: a page chunk that fails to load reloads the page, but not twice within 10 s. */
export const CHUNK_RELOAD_GUARD_MS = 10_000;
export const LAST_RELOAD_KEY = "tollgate:chunk-reload-at";

declare global {
  var __tollgateReloadAfterChunkError: ((error: unknown) => boolean) | undefined;
}

/** Reloads unless a chunk reload happened less than 10 s ago; returns whether it reloads. */
export function reloadAfterChunkError(): boolean {
  const now = Date.now();
  try {
    const last = Number(window.sessionStorage.getItem(LAST_RELOAD_KEY) ?? 0);
    if (now - last < CHUNK_RELOAD_GUARD_MS) return false;
    window.sessionStorage.setItem(LAST_RELOAD_KEY, String(now));
  } catch {
    return false;
  }
  window.location.reload();
  return true;
}

/** Dynamic import for our own lazy chunks, with the same reload-on-failure rule as route modules. */
export function loadChunk<T>(load: () => Promise<T>): Promise<T> {
  return load().then(
    // Vite resolves a failed import to undefined once the vite:preloadError handler below has started a reload.
    (module) => module ?? new Promise<T>(() => {}),
    (error: unknown) => {
      if (reloadAfterChunkError()) return new Promise<T>(() => {});
      throw error;
    },
  );
}

export function installChunkReloadGuard(): void {
  globalThis.__tollgateReloadAfterChunkError = reloadAfterChunkError;
  window.addEventListener("vite:preloadError", (event) => {
    if (reloadAfterChunkError()) event.preventDefault();
  });
}
