import { Button } from "antd";
import { useT } from "../../i18n";
import { api } from "../../lib/http";
import { useSession } from "../../lib/session-store";

/** Sign out: revoke the session on the server, then forget it here whatever the server said. */
export function ConsoleUserMenu() {
  const t = useT();
  const signOut = async () => {
    try {
      await api("/api/v1/auth/logout", { method: "POST", quiet: true });
    } finally {
      useSession.getState().clearUserInfo();
      window.location.assign("/");
    }
  };
  return (
    <Button size="small" onClick={() => void signOut()} data-testid="sign-out">
      {t("nav.logout")}
    </Button>
  );
}
