/**
 * The theme's tokens derived at build time, handed to antd's style cache (decision 041).
 *
 * antd derives the theme's token from its seed (colour palettes, sizes, the CSS variables) in the
 * first render of the first component under a ConfigProvider, ~90 ms of the console layout's first
 * render under a 4× CPU slowdown; and each component type, at its first render, its own tokens and
 * CSS variables from it (60–80 ms more over a page's renders), for a theme that never changes.
 * antd keeps each result in @ant-design/cssinjs's cache, under a key made of antd's version, the
 * tokens' hashes and the component's names, and computes it only when that key is missing. The
 * build (scripts/antd-styles/extract.ts, `consoleAntdSeed`) renders every component the console
 * can show in the console's theme and keeps those entries; here each is put in the cache when antd
 * asks for the same key. A key that differs (another antd version, a changed theme or component
 * token, development's class names) gets nothing: antd computes it as before.
 */

/** The entries of antd's cache the build kept, by their key (`seedKey`): JSON, the same in every page. */
export interface AntdCacheSeed {
  entries: [key: string, value: unknown][];
}

/** The part of @ant-design/cssinjs's cache (its `Entity`) that antd's hooks go through. */
interface StyleCache {
  opGet(key: string): unknown;
  opUpdate(key: string, update: (previous: unknown) => unknown): void;
}

const SEP = "%";
const TOKEN = `token${SEP}`;
const CSS_VAR = `cssVar${SEP}`;

/**
 * An entry's key as the seed keeps it: the theme's token is `token%<salt>%<theme id>%<token hash>%
 * <override hash>%<css var hash>` (useCacheToken), and the theme's id is a counter of the themes
 * created in the process, which may differ between the build and the browser for the same theme:
 * it is left out. A component's CSS variables are `cssVar%<component>%<css var class>%<prefix>%
 * <token hash>` (useCSSVarRegister), kept as they are. Other keys are not seeded.
 */
export function seedKey(key: string): string | null {
  if (key.startsWith(TOKEN)) {
    const parts = key.split(SEP);
    parts.splice(2, 1);
    return parts.join(SEP);
  }
  return key.startsWith(CSS_VAR) ? key : null;
}

const seeded = new WeakSet<object>();

/**
 * Makes `cache` (antd's style cache, from @ant-design/cssinjs's StyleContext) answer the entries in
 * `seed` instead of computing them. Idempotent; with no seed (development) it does nothing.
 */
export function seedAntdCache(cache: StyleCache, seed: AntdCacheSeed | null): void {
  if (!seed || seeded.has(cache)) return;
  seeded.add(cache);
  const values = new Map(seed.entries);
  const update = cache.opUpdate;
  cache.opUpdate = function (this: StyleCache, key, fn) {
    // antd's useGlobalCache builds an entry as `previous ?? compute()`: one already there is not computed.
    if (this.opGet(key) === null) {
      const id = seedKey(key);
      const value = id === null ? undefined : values.get(id);
      if (value !== undefined) update.call(this, key, () => [0, value]);
    }
    update.call(this, key, fn);
  };
}
