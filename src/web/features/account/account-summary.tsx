import { Button, Card, Descriptions, Flex, Skeleton, Statistic } from "antd";
import { Link } from "react-router";
import { useT } from "../../i18n";
import { beijingDate } from "#shared/beijing-time";
import { useSession } from "../../lib/session-store";
import { siteConfig } from "../../lib/site-config";
import { withCurrency } from "../../lib/money-format";

/** Who the user is and what they hold: the balance is the store's, floored to 2 decimals, with every decimal beside it where they differ. */
export function AccountSummary() {
  const t = useT();
  const user = useSession((s) => s.userInfo);
  return (
    <Card data-testid="account-summary">
      {user ? (
        <Flex wrap gap={32} justify="space-between" align="center">
          <Descriptions
            column={1}
            size="small"
            items={[
              { key: "phone", label: t("account.phone"), children: <span data-testid="account-phone">{user.phone}</span> },
              { key: "id", label: t("account.userId"), children: <span data-testid="account-id">{user.id}</span> },
              { key: "since", label: t("account.memberSince"), children: beijingDate(user.createdAt) },
            ]}
          />
          <Flex vertical gap={12}>
            <Statistic
              title={t("account.balance")}
              value={user.balance}
              valueRender={() => (
                <>
                  <span data-testid="account-balance">
                    {siteConfig.currencySymbol}
                    {user.balance}
                  </span>
                  {user.exactBalance ? (
                    <small className="account-balance-exact" data-testid="account-balance-exact">
                      {" "}({withCurrency(user.exactBalance)})
                    </small>
                  ) : null}
                </>
              )}
            />
            <Flex gap={8} wrap>
              <Link to="/console/charge-details">
                <Button type="primary" data-testid="top-up">
                  {t("account.topUp")}
                </Button>
              </Link>
              <Link to="/console/api-keys?create">
                <Button data-testid="create-key-link">{t("account.createKey")}</Button>
              </Link>
            </Flex>
          </Flex>
        </Flex>
      ) : (
        <Skeleton active paragraph={{ rows: 3 }} />
      )}
    </Card>
  );
}
