import { Alert, Button, Input, Space } from "antd";
import { useT } from "../../i18n";
import { copyText } from "../../lib/clipboard";
import { toast } from "../../lib/toast";
import { MONO } from "./mono";

/** The full key, shown once right after it is created. */
export function NewKeySecret({ secret }: { secret: string }) {
  const t = useT();
  const copy = async () => {
    if (await copyText(secret)) toast("success", t("apiKeys.copied"));
    else toast("error", t("apiKeys.copyFailed"));
  };
  return (
    <Space orientation="vertical" size="middle" style={{ width: "100%" }}>
      <Alert type="warning" showIcon title={t("apiKeys.secretWarning")} />
      <Space.Compact style={{ width: "100%" }}>
        <Input
          readOnly
          value={secret}
          data-testid="new-key-secret"
          aria-label={t("apiKeys.secretTitle")}
          style={MONO}
          onFocus={(e) => e.target.select()}
        />
        <Button type="primary" onClick={() => void copy()} data-testid="copy-key">
          {t("apiKeys.copy")}
        </Button>
      </Space.Compact>
    </Space>
  );
}
