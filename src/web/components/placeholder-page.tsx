import { Typography } from "antd";
import { useT, type MessageKey } from "../i18n";

export function PlaceholderPage({ titleKey, testId }: { titleKey: MessageKey; testId: string }) {
  const t = useT();
  return (
    <section data-testid={testId}>
      <Typography.Title level={2}>{t(titleKey)}</Typography.Title>
      <Typography.Paragraph>{t("pages.comingSoon")}</Typography.Paragraph>
    </section>
  );
}
