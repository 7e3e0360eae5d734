import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Card, Typography } from "antd";
import { useT } from "../../i18n";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { runwayQueryOptions } from "./api/get-runway";

const DAYS_IN_A_YEAR = 365;

/** How long the balance lasts at the last 7 days' average spend. */
export function RunwayCard() {
  const t = useT();
  const token = useSession((s) => s.token);
  const balance = useSession((s) => s.userInfo?.balance);
  const queryClient = useQueryClient();
  const { data, isPending } = useQuery(runwayQueryOptions(token));
  // A change of the balance it has shown (a charge, a top-up) refetches; the card keeps the last
  // answer meanwhile instead of blinking. The balance's first arrival does not: the runway was
  // asked for with it (the page's loader starts both), not after it.
  const shownBalance = useRef(balance);
  useEffect(() => {
    if (balance === undefined) return;
    if (shownBalance.current !== undefined && shownBalance.current !== balance) {
      void queryClient.invalidateQueries({ queryKey: runwayQueryOptions(token).queryKey });
    }
    shownBalance.current = balance;
  }, [balance, token, queryClient]);
  let text = "";
  if (data) {
    const perDay = withCurrency(data.averageDailySpend);
    if (data.days === null) text = t("account.runwayNoSpend");
    else if (data.days === 0) text = t("account.runwayUnderADay", { perDay });
    // A count of days past a year says nothing a reader can plan by ("About 233326 days").
    else if (data.days > DAYS_IN_A_YEAR) text = t("account.runwayOverAYear", { perDay });
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
