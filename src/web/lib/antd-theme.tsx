import { LoadingOutlined } from "@ant-design/icons";
import { ConfigProvider, message, type ConfigProviderProps, type ThemeConfig } from "antd";
import type { ReactNode } from "react";
import { cspNonce } from "./csp-nonce";
import { Z_INDEX_MESSAGE, Z_INDEX_POPUP_BASE } from "./z-index";

export { message };

/** antd's greys for labels, help text and placeholders (25–45 % black, at best 3.4:1 on white) made dark enough for WCAG AA's 4.5:1. */
const READABLE_GREY = "rgba(0, 0, 0, 0.6)";

export const antdTheme: ThemeConfig = {
  token: {
    colorPrimary: "#0f766e",
    borderRadius: 8,
    zIndexPopupBase: Z_INDEX_POPUP_BASE,
    colorTextDescription: READABLE_GREY,
    colorTextTertiary: READABLE_GREY,
    colorTextPlaceholder: READABLE_GREY,
    // antd's link blue (#1677ff) is 4.1:1 on white; its next shade reads at 6.2:1.
    colorLink: "#0958d9",
    // antd's red (#ff4d4f) is 3.3:1 as a danger button's text on white and under a danger button's white text; one shade darker reads at 5.6:1.
    colorError: "#cf1322",
    // A green tag's text (#389e0d) is 3.4:1 on its pale green; one shade darker reads at 5.4:1.
    green7: "#237804",
    "green-7": "#237804",
  },
  // A table's "No data" is in colorTextDisabled (25 % black), though it is text to read.
  // The menu's selected item gets a background its teal text reads on (4.9:1); antd's derived one is 2.6:1.
  components: {
    Message: { zIndexPopup: Z_INDEX_MESSAGE },
    Table: { colorTextDisabled: READABLE_GREY },
    Menu: { itemSelectedBg: "#ccfbf1", itemSelectedColor: "#0f766e" },
  },
  // One name for the class carrying the theme's CSS variables, wherever antd renders: the console's
  // stylesheet is generated at build time with it (scripts/antd-styles). antd otherwise names it
  // after the ConfigProvider's React id.
  cssVar: { key: "css-var-tollgate" },
};

/**
 * What every antd root gets: the theme; the response's CSP nonce for antd's <style> elements; and
 * a loading icon of our own, which antd shows without its width animation. That animation,
 * started and reversed within a frame (a fast answer), leaves the icon at width 0 but still
 * labelled "loading", and screen readers keep announcing the button as loading.
 */
export const antdConfig: ConfigProviderProps = {
  theme: antdTheme,
  csp: { nonce: cspNonce },
  // antd letter-spaces two-character Chinese labels ("保 存"); Chinese interfaces write them closed.
  button: { loadingIcon: <LoadingOutlined />, autoInsertSpace: false },
};

/** antd's static `message` ignores React context; this gives it the same configuration as the app. */
export function configureStaticAntd(): void {
  ConfigProvider.config({
    holderRender: (children: ReactNode) => <ConfigProvider {...antdConfig}>{children}</ConfigProvider>,
  });
}
