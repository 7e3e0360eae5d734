import { createCache, StyleProvider } from "@ant-design/cssinjs";
import { Button, Card, ConfigProvider, Form, Input, Layout, Menu, Table, theme, Typography } from "antd";
import enUS from "antd/locale/en_US";
import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { expect, it } from "vitest";
import { consoleAntdSeed } from "../../scripts/antd-styles/extract";
import { antdConfig } from "../../src/web/lib/antd-theme";
import { seedAntdCache, seedKey, type AntdCacheSeed } from "../../src/web/lib/antd-token-seed";

type Cache = ReturnType<typeof createCache> & { cache: Map<string, [number, unknown]> };

/** Renders what the console layout renders (its ConfigProvider's props, zeroRuntime on) around a few of its components, and reads the theme's token as a component sees it. */
function renderConsole(cache: Cache) {
  let seen: ReturnType<typeof theme.useToken> | undefined;
  const Probe = () => {
    seen = theme.useToken();
    return h(Button, null, "a");
  };
  const config = { ...antdConfig, theme: { ...antdConfig.theme, zeroRuntime: true } };
  const page = h(
    Layout,
    null,
    h(Menu, { mode: "inline", items: [{ key: "a", label: "a" }] }),
    h(Probe),
    h(Card, { title: "a" }, h(Typography.Paragraph, { type: "secondary" }, "b")),
    h(Form, { layout: "vertical" }, h(Form.Item, { label: "a", extra: "b" }, h(Input))),
    h(Table, { columns: [{ title: "a", dataIndex: "a" }], dataSource: [], scroll: { x: true } }),
  );
  const html = renderToString(h(StyleProvider, { cache }, h(ConfigProvider, { ...config, locale: enUS }, page)));
  const entries = [...cache.cache].filter(([key]) => seedKey(key) !== null);
  return { seen: seen!, html, entries };
}

it("gives the console's components the tokens and CSS variables antd derives, without deriving them (decision 041)", () => {
  const seed = consoleAntdSeed();
  const seeds = new Map(seed.entries);
  const derived = renderConsole(createCache() as Cache);

  const cache = createCache() as Cache;
  seedAntdCache(cache, seed);
  const seeded = renderConsole(cache);

  // Every entry the layout's ConfigProvider and these components ask for is the build's object, not one computed here:
  // the theme's token and each component type's CSS variables.
  expect(seeded.entries.length).toBeGreaterThan(8);
  expect(seeded.entries.filter(([key]) => key.startsWith("token%"))).toHaveLength(1);
  for (const [key, [, value]] of seeded.entries) expect(value, key).toBe(seeds.get(seedKey(key)!));
  // What a component reads (its token, the hash class, the CSS variables) and what is rendered are the same.
  expect(seeded.seen.token).toEqual(derived.seen.token);
  expect(seeded.seen.hashId).toBe(derived.seen.hashId);
  expect(seeded.seen.cssVar).toEqual(derived.seen.cssVar);
  expect(seeded.entries.map(([key, [, value]]) => [key, value])).toEqual(derived.entries.map(([key, [, value]]) => [key, value]));
  expect(seeded.html).toBe(derived.html);
  // The build keeps it as JSON: nothing is lost on the way.
  expect(JSON.parse(JSON.stringify(seed))).toEqual(seed);
});

it("leaves an entry it was not built for to antd", () => {
  const seed = consoleAntdSeed();
  const other: AntdCacheSeed = { entries: seed.entries.map(([key, value]) => [`${key}x`, value]) };
  const cache = createCache() as Cache;
  seedAntdCache(cache, other);
  const { entries } = renderConsole(cache);
  const built = new Map(seed.entries);
  expect(entries.length).toBeGreaterThan(8);
  for (const [key, [, value]] of entries) {
    expect(value, key).not.toBe(built.get(seedKey(key)!));
    expect(value, key).toEqual(built.get(seedKey(key)!));
  }
});
