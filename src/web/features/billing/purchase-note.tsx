import { Typography } from "antd";
import type { PurchaseRow } from "#shared/billing";
import { beijingDate } from "#shared/beijing-time";
import { useT } from "../../i18n";
import { usePackageName } from "../../lib/api/list-tools";

/** Under a purchase's tool: which package was bought, when its units expire, and whether the operator refunded them. */
export function PurchaseNote({ purchase, toolId }: { purchase: PurchaseRow; toolId: string }) {
  const t = useT();
  const packageName = usePackageName();
  const words = { name: packageName(toolId, purchase.packageId, purchase.name), date: beijingDate(purchase.expiresAt) };
  return (
    // Wraps within the tool's column rather than widening the table past the screen.
    <Typography.Text type="secondary" style={{ display: "block", maxWidth: 200, whiteSpace: "normal" }} data-testid="billing-purchase">
      {purchase.refundedAt ? t("billing.purchaseRefunded", { ...words, refunded: beijingDate(purchase.refundedAt) }) : t("billing.purchase", words)}
    </Typography.Text>
  );
}
