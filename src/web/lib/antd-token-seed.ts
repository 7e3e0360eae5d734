/**
 * The theme's token derived at build time, handed to antd's style cache (decision 041).
 *
 * antd derives the theme's tokens from its seed (colour palettes, sizes, the CSS variables) in the
 * first render of the first component under a ConfigProvider, once per page: ~90 ms of the console
 * layout's first render under a 4× CPU slowdown, for a theme that never changes. antd keeps the
 * result in @ant-design/cssinjs's cache, under a key made of antd's version, the theme's id and
 * hashes of the tokens and options, and computes it only when that key is missing. The build
 * (scripts/antd-styles/extract.ts, `consoleAntdToken`) renders the console's theme and keeps that
 * entry; here it is put in the cache when antd asks for the same key. A key that differs in
 * anything but the theme's id (another antd version, a changed theme, development's class names)
 * gets nothing: antd derives it as before.
 */

/** What the build keeps of antd's cache entry for the theme's token: JSON, the same in every page. */
export interface AntdTokenSeed {
  path: string;
  value: unknown;
}

/** The part of @ant-design/cssinjs's cache (its `Entity`) that useCacheToken goes through. */
interface StyleCache {
  opGet(key: string): unknown;
  opUpdate(key: string, update: (previous: unknown) => unknown): void;
}

const SEP = "%";

/**
 * A token entry's key is `token%<salt>%<theme id>%<token hash>%<override hash>%<css var hash>`
 * (@ant-design/cssinjs, useCacheToken). The theme's id is a counter of the themes created in the
 * process, so the build's and the browser's may differ for the same theme: it is left out.
 */
export function tokenPathWithoutTheme(key: string): string {
  const parts = key.split(SEP);
  parts.splice(2, 1);
  return parts.join(SEP);
}

const seeded = new WeakSet<object>();

/**
 * Makes `cache` (antd's style cache, from @ant-design/cssinjs's StyleContext) answer the theme's
 * token from `seed` instead of deriving it. Idempotent; with no seed (development) it does nothing.
 */
export function seedAntdToken(cache: StyleCache, seed: AntdTokenSeed | null): void {
  if (!seed || seeded.has(cache)) return;
  seeded.add(cache);
  const update = cache.opUpdate;
  cache.opUpdate = function (this: StyleCache, key, fn) {
    // useGlobalCache builds an entry as `previous ?? compute()`: an entry already there skips the derivation.
    if (key.startsWith(`token${SEP}`) && this.opGet(key) === null && tokenPathWithoutTheme(key) === seed.path) {
      update.call(this, key, () => [0, seed.value]);
    }
    update.call(this, key, fn);
  };
}
