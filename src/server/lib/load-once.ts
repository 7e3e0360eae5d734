/**
 * A module imported on first use rather than at start-up, so a process holds in memory only the
 * libraries of what it has served (docs/decisions/026). The import runs once and every caller
 * shares it; an import that fails (out of file descriptors, say) is tried again by the next caller.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
}
