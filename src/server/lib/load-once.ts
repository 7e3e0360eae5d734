/**
 * A module imported on first use rather than at start-up, so a process holds in memory only the
 * libraries of what it has served (docs/decisions/026). The import runs once; every caller shares it.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
