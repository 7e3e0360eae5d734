import { useQuery } from "@tanstack/react-query";
import { Button, Card, Input, Space, Statistic, Typography } from "antd";
import { useT } from "../../i18n";
import { copyText } from "../../lib/clipboard";
import { useSession } from "../../lib/session-store";
import { toast } from "../../lib/toast";
import { referralsQueryOptions } from "./api/get-referrals";

export function ReferralCard() {
  const t = useT();
  const token = useSession((s) => s.token);
  const referrals = useQuery(referralsQueryOptions(token));
  const link = referrals.data?.link ?? "";
  const copy = async () => {
    if (await copyText(link)) toast("success", t("account.copied"));
    else toast("error", t("account.copyFailed"));
  };
  return (
    <Card title={t("account.referralTitle")} loading={referrals.isPending} data-testid="referral-card">
      <Typography.Paragraph type="secondary">{t("account.referralIntro")}</Typography.Paragraph>
      <Space.Compact style={{ width: "100%", maxWidth: 560 }}>
        <Input readOnly value={link} aria-label={t("account.referralLink")} data-testid="referral-link" onFocus={(e) => e.target.select()} />
        <Button onClick={() => void copy()} disabled={!link} data-testid="copy-referral">
          {t("account.copy")}
        </Button>
      </Space.Compact>
      <Statistic
        style={{ marginTop: 16 }}
        title={t("account.signups")}
        value={referrals.data?.signups ?? 0}
        valueRender={(node) => <span data-testid="referral-signups">{node}</span>}
      />
    </Card>
  );
}
