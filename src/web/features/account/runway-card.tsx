import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Card, Typography } from "antd";
import { useT } from "../../i18n";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { runwayQueryOptions } from "./api/get-runway";

/** How long the balance lasts at the last 7 days' average spend. */
export function RunwayCard() {
  const t = useT();
  const token = useSession((s) => s.token);
  const balance = useSession((s) => s.userInfo?.balance);
  // The balance arriving or changing refetches; the card keeps the last answer meanwhile instead of blinking.
  const { data, isPending } = useQuery({ ...runwayQueryOptions(token, balance), placeholderData: keepPreviousData });
  let text = "";
  if (data) {
    const perDay = withCurrency(data.averageDailySpend);
    if (data.days === null) text = t("account.runwayNoSpend");
    else if (data.days === 0) text = t("account.runwayUnderADay", { perDay });
    else text = t(data.days === 1 ? "account.runwayOneDay" : "account.runwayDays", { days: String(data.days), perDay });
  }
  return (
    <Card title={t("account.runwayTitle")} loading={isPending} data-testid="runway-card">
      <Typography.Text strong data-testid="runway">
        {text}
      </Typography.Text>
    </Card>
  );
}
