import { DownOutlined } from "@ant-design/icons";
import { Button, Dropdown, Modal, Space, type ButtonProps } from "antd";
import { useT } from "../../i18n";
import { useSession } from "../../lib/session-store";
import { logout, logoutAll } from "./api/logout";

/** Revoke on the server, then forget the session here whatever the server said. */
async function signOut(revoke: () => Promise<unknown>) {
  try {
    await revoke();
  } finally {
    useSession.getState().clearUserInfo();
    window.location.assign("/");
  }
}

/** Sign out, with a menu for signing out of every device. */
export function ConsoleUserMenu() {
  const t = useT();
  const [modal, contextHolder] = Modal.useModal();
  const confirmSignOutAll = () =>
    modal.confirm({
      title: t("account.signOutAll"),
      content: t("account.signOutAllConfirm"),
      okText: t("account.signOutAll"),
      okButtonProps: { danger: true, "data-testid": "confirm-sign-out-all" } as ButtonProps,
      cancelText: t("account.cancel"),
      onOk: () => signOut(logoutAll),
    });
  return (
    <>
      {contextHolder}
      <Space.Compact size="small">
        <Button size="small" onClick={() => void signOut(logout)} data-testid="sign-out">
          {t("nav.logout")}
        </Button>
        <Dropdown
          trigger={["click"]}
          menu={{
            items: [
              { key: "sign-out", label: t("nav.logout"), onClick: () => void signOut(logout) },
              { key: "sign-out-all", danger: true, label: <span data-testid="sign-out-all">{t("account.signOutAll")}</span>, onClick: confirmSignOutAll },
            ],
          }}
        >
          <Button size="small" icon={<DownOutlined />} aria-label={t("account.userMenu")} data-testid="user-menu" />
        </Dropdown>
      </Space.Compact>
    </>
  );
}
