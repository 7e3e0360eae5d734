/**
 * antd's styles for the console's theme, as one stylesheet (decision 034): what antd's CSS-in-JS
 * would generate in the browser for every antd component the console can render, generated here
 * once at build time by rendering them to a string and reading antd's style cache. The console
 * runs antd with `zeroRuntime`, which skips that generation, and links this sheet instead.
 *
 * Run it with NODE_ENV=production (vite-plugin.ts does): antd's class hash is `css-…` only then.
 * Prints the stylesheet and the theme's derived tokens (consoleAntdSeed) on stdout, as JSON.
 */
import { createCache, extractStyle, StyleProvider } from "@ant-design/cssinjs";
import { iconStyles } from "@ant-design/icons/es/utils";
import * as antd from "antd";
import { createElement as h, Fragment, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { antdTheme } from "../../src/web/lib/antd-theme";
import { seedKey, type AntdCacheSeed } from "../../src/web/lib/antd-token-seed";

const SEP = "%";

/**
 * The components the console imports from antd and every antd component with styles of its own
 * that those can render (found from antd's module graph: a Table renders Pagination, Spin, Empty,
 * Checkbox, Radio, Dropdown, Tooltip…). Each is rendered so that all its style hooks run: popups
 * through antd's own panels, sub-styles (a Tag's preset and status colours, a Button in a compact
 * Space, Input's TextArea, Search, Password and OTP) explicitly. Tree and Collapse are reachable
 * only through options the console does not use (a tree filter).
 * `tests/unit/antd-styles.test.ts` fails when the console imports a component not listed here.
 */
export const CONSOLE_COMPONENTS: Record<string, () => ReactNode> = {
  Alert: () => h(antd.Alert, { title: "a", type: "info" }),
  App: () => h(antd.App, null, "a"),
  Button: () => [h(antd.Button, { key: 1 }, "a"), h(antd.Button, { key: 2, type: "primary", loading: true }, "a")],
  Card: () => h(antd.Card, { title: "a", extra: "b" }, "c"),
  Checkbox: () => h(antd.Checkbox, null, "a"),
  DatePicker: () => [h(antd.DatePicker, { key: 1 }), h(antd.DatePicker.RangePicker, { key: 2 })],
  Descriptions: () => h(antd.Descriptions, { items: [{ key: 1, label: "a", children: "b" }] }),
  Drawer: () => [h(antd.Drawer, { key: 1 }), h(antd.Drawer._InternalPanelDoNotUseOrYouWillBeFired, { key: 2, title: "a" }, "b")],
  Dropdown: () => h(antd.Dropdown, { menu: { items: [{ key: 1, label: "a" }] } }, h("span", null, "a")),
  Empty: () => h(antd.Empty),
  Flex: () => h(antd.Flex, null, "a"),
  Form: () => [
    h(antd.Form, { key: 1 }, h(antd.Form.Item, { label: "a", help: "b" }, h(antd.Input))),
    h(antd.Form.Item, { key: 2, label: "a" }, h(antd.Input)),
  ],
  Grid: () => h(antd.Row, null, h(antd.Col, { span: 12, xs: 24, md: 12 }, "a")),
  Input: () => [
    h(antd.Input, { key: 1 }),
    h(antd.Input.TextArea, { key: 2, showCount: true }),
    h(antd.Input.Search, { key: 3 }),
    h(antd.Input.Password, { key: 4 }),
    h(antd.Input.OTP, { key: 5 }),
  ],
  InputNumber: () => h(antd.InputNumber),
  Layout: () =>
    h(antd.Layout, null, h(antd.Layout.Header), h(antd.Layout, { hasSider: true }, h(antd.Layout.Sider, { theme: "light" }), h(antd.Layout.Content))),
  List: () => h(antd.List, { dataSource: ["a"], renderItem: (item: unknown) => h(antd.List.Item, null, h(antd.List.Item.Meta, { title: String(item), description: "b" })) }),
  Menu: () => h(antd.Menu, { mode: "inline", items: [{ key: 1, label: "a" }] }),
  message: () => h(antd.message._InternalPanelDoNotUseOrYouWillBeFired, { content: "a" }),
  Modal: () => [
    h(antd.Modal, { key: 1 }),
    h(antd.Modal._InternalPanelDoNotUseOrYouWillBeFired, { key: 2 }),
    h(antd.Modal._InternalPanelDoNotUseOrYouWillBeFired, { key: 3, type: "confirm" }),
  ],
  notification: () => h(antd.notification._InternalPanelDoNotUseOrYouWillBeFired, { title: "a" }),
  Pagination: () => h(antd.Pagination, { total: 100, showSizeChanger: true }),
  Popconfirm: () => [
    h(antd.Popconfirm, { key: 1, title: "a" }, h("span", null, "a")),
    h(antd.Popconfirm._InternalPanelDoNotUseOrYouWillBeFired, { key: 2, title: "a" }),
  ],
  Popover: () => [h(antd.Popover, { key: 1, content: "a" }, h("span", null, "a")), h(antd.Popover._InternalPanelDoNotUseOrYouWillBeFired, { key: 2, content: "a" })],
  QRCode: () => h(antd.QRCode, { value: "a" }),
  Switch: () => [h(antd.Switch, { key: 1 }), h(antd.Switch, { key: 2, size: "small", checked: true })],
  Radio: () => [h(antd.Radio, { key: 1 }, "a"), h(antd.Radio.Group, { key: 2, optionType: "button", options: ["a"] })],
  Result: () => h(antd.Result, { status: "403", title: "a" }),
  Segmented: () => h(antd.Segmented, { options: ["a", "b"] }),
  Select: () => [h(antd.Select, { key: 1 }), h(antd.Select, { key: 2, mode: "multiple" })],
  Skeleton: () => [h(antd.Skeleton, { key: 1, active: true }), h(antd.Skeleton.Button, { key: 2 }), h(antd.Skeleton.Input, { key: 3 })],
  Space: () => h(antd.Space, null, h(antd.Space.Compact, null, h(antd.Button, null, "a"), h(antd.Input))),
  Spin: () => h(antd.Spin),
  Statistic: () => h(antd.Statistic, { title: "a", value: 1 }),
  Table: () => h(antd.Table, { columns: [{ title: "a", dataIndex: "a" }], dataSource: [{ key: 1, a: "b" }] }),
  Tabs: () => h(antd.Tabs, { items: [{ key: "a", label: "a", children: "b" }, { key: "c", label: "c" }] }),
  Tag: () => [h(antd.Tag, { key: 1 }, "a"), h(antd.Tag, { key: 2, color: "blue" }, "a"), h(antd.Tag, { key: 3, color: "success" }, "a")],
  Tooltip: () => [h(antd.Tooltip, { key: 1, title: "a" }, h("span", null, "a")), h(antd.Tooltip._InternalPanelDoNotUseOrYouWillBeFired, { key: 2, title: "a" })],
  Typography: () => [
    h(antd.Typography.Title, { key: 1, level: 2 }, "a"),
    h(antd.Typography.Paragraph, { key: 2, ellipsis: { rows: 2 } }, "a"),
    h(antd.Typography.Text, { key: 3, copyable: true, code: true }, "a"),
    h(antd.Typography.Link, { key: 4 }, "a"),
  ],
};

/**
 * The console's stylesheet: antd's icon base style (zeroRuntime turns off its insertion too), then
 * every component's rules. Not the theme's CSS variables nor each component's: antd writes those
 * at run time whatever zeroRuntime says (decision 034), so here they would only be parsed twice.
 */
export function consoleAntdCss(): string {
  const cache = createCache();
  const components = Object.entries(CONSOLE_COMPONENTS).map(([name, render]) => h(Fragment, { key: name }, render()));
  renderToString(h(StyleProvider, { cache }, h(antd.ConfigProvider, { theme: antdTheme }, components)));
  // The last rule extractStyle writes maps cache paths to hashes for hydrating server-rendered styles; nothing here reads it.
  const styles = extractStyle(cache, { plain: true, types: ["style"] }).replace(/\.data-ant-cssinjs-cache-path\{[^}]*\}$/, "");
  return `${iconStyles.replace(/\s*\n\s*/g, "")}${styles}`;
}

/**
 * The theme's tokens as antd derives and caches them (decision 041): the entries of antd's style
 * cache for `antdTheme` once every console component has rendered. The theme's token (the derived
 * token with its CSS-variable references, the hash class, the derived token itself, the theme's CSS
 * variables and their class) and each component type's tokens and CSS variables, which the browser
 * would otherwise compute in the console's first renders; keyed as src/web/lib/antd-token-seed.ts
 * looks them up. Only entries under the console's CSS-variable class: a Modal's inner provider,
 * named after its React id, would not be found again.
 */
export function consoleAntdSeed(): AntdCacheSeed {
  const cache = createCache();
  const components = Object.entries(CONSOLE_COMPONENTS).map(([name, render]) => h(Fragment, { key: name }, render()));
  renderToString(h(StyleProvider, { cache }, h(antd.ConfigProvider, { theme: antdTheme }, components)));
  const cssVarKey = antdTheme.cssVar!.key;
  const entries: [string, unknown][] = [];
  let tokens = 0;
  for (const [key, [, value]] of (cache as unknown as { cache: Map<string, [number, unknown]> }).cache) {
    const id = seedKey(key);
    if (id === null) continue;
    // The CSS-variable class is in a component's key, and last in the theme token's entry.
    if (key.startsWith("cssVar") ? !key.includes(`${SEP}${cssVarKey}${SEP}`) : (value as unknown[])[4] !== cssVarKey) continue;
    if (key.startsWith("token")) tokens++;
    entries.push([id, value]);
  }
  if (tokens !== 1) throw new Error(`antd-styles: expected one theme token in antd's cache, found ${tokens}`);
  return { entries };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.env.NODE_ENV !== "production") throw new Error("antd-styles: run with NODE_ENV=production, antd's class names differ in development");
  process.stdout.write(JSON.stringify({ css: consoleAntdCss(), seed: consoleAntdSeed() }));
}
