import { createCache, StyleProvider } from "@ant-design/cssinjs";
import { Button, ConfigProvider, theme } from "antd";
import enUS from "antd/locale/en_US";
import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { expect, it } from "vitest";
import { consoleAntdToken } from "../../scripts/antd-styles/extract";
import { antdConfig } from "../../src/web/lib/antd-theme";
import { seedAntdToken } from "../../src/web/lib/antd-token-seed";

type Cache = ReturnType<typeof createCache> & { cache: Map<string, [number, unknown]> };

/** Renders what the console layout renders (its ConfigProvider's props, zeroRuntime on) and reads the theme's token as a component sees it. */
function renderConsole(cache: Cache) {
  let seen: ReturnType<typeof theme.useToken> | undefined;
  const Probe = () => {
    seen = theme.useToken();
    return h(Button, null, "a");
  };
  const config = { ...antdConfig, theme: { ...antdConfig.theme, zeroRuntime: true } };
  const html = renderToString(h(StyleProvider, { cache }, h(ConfigProvider, { ...config, locale: enUS }, h(Probe))));
  const entries = [...cache.cache].filter(([key]) => key.startsWith("token%"));
  return { seen: seen!, html, entries };
}

it("gives the console's components the token antd derives, without deriving it (decision 041)", () => {
  const seed = consoleAntdToken();
  const derived = renderConsole(createCache() as Cache);

  const cache = createCache() as Cache;
  seedAntdToken(cache, seed);
  const seeded = renderConsole(cache);

  // The layout's ConfigProvider asks for the entry the build kept: it is the build's object, not one derived here.
  expect(seeded.entries).toHaveLength(1);
  expect(seeded.entries[0]![1][1]).toBe(seed.value);
  // What a component reads (its token, the hash class, the CSS variables) and what is rendered are the same.
  expect(seeded.seen.token).toEqual(derived.seen.token);
  expect(seeded.seen.hashId).toBe(derived.seen.hashId);
  expect(seeded.seen.cssVar).toEqual(derived.seen.cssVar);
  expect(seeded.entries[0]![1][1]).toEqual(derived.entries[0]![1][1]);
  expect(seeded.html).toBe(derived.html);
  // The build keeps it as JSON: nothing is lost on the way.
  expect(JSON.parse(JSON.stringify(seed.value))).toEqual(derived.entries[0]![1][1]);
});

it("leaves a token it was not built for to antd", () => {
  const seed = consoleAntdToken();
  const cache = createCache() as Cache;
  seedAntdToken(cache, { ...seed, path: seed.path.replace(/%[^%]+$/, "%other") });
  const { entries } = renderConsole(cache);
  expect(entries).toHaveLength(1);
  expect(entries[0]![1][1]).not.toBe(seed.value);
  expect(entries[0]![1][1]).toEqual(seed.value);
});
