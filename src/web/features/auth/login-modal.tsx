import { Modal } from "antd";
import { useT } from "../../i18n";
import { useSession } from "../../lib/session-store";

export default function LoginModal() {
  const t = useT();
  const close = useSession((s) => s.closeLoginModal);
  return (
    <Modal open title={t("login.title")} onCancel={close} maskClosable={false} footer={null}>
      <p>{t("login.phone")}</p>
    </Modal>
  );
}
