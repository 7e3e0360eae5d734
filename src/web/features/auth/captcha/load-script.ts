const loaded = new Map<string, Promise<void>>();

/** Adds a provider's script once; rejects when it fails or takes longer than `timeoutMs`. */
export function loadScript(src: string, timeoutMs = 10_000): Promise<void> {
  let pending = loaded.get(src);
  if (!pending) {
    pending = new Promise<void>((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.async = true;
      const timer = window.setTimeout(() => reject(new Error(`timed out loading ${src}`)), timeoutMs);
      script.onload = () => {
        window.clearTimeout(timer);
        resolve();
      };
      script.onerror = () => {
        window.clearTimeout(timer);
        script.remove();
        reject(new Error(`failed to load ${src}`));
      };
      document.head.appendChild(script);
    });
    pending.catch(() => loaded.delete(src));
    loaded.set(src, pending);
  }
  return pending;
}
