import { ConfigProvider, message, type ThemeConfig } from "antd";
import type { ReactNode } from "react";
import { Z_INDEX_MESSAGE, Z_INDEX_POPUP_BASE } from "./toast";

export { message };

export const antdTheme: ThemeConfig = {
  token: { colorPrimary: "#0f766e", borderRadius: 8, zIndexPopupBase: Z_INDEX_POPUP_BASE },
  components: { Message: { zIndexPopup: Z_INDEX_MESSAGE } },
};

/** antd's static `message` ignores React context; this gives it the same theme as the app. */
export function configureStaticAntd(): void {
  ConfigProvider.config({
    holderRender: (children: ReactNode) => <ConfigProvider theme={antdTheme}>{children}</ConfigProvider>,
  });
}
