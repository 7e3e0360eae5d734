import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Descriptions, Form, Modal, Select, Typography } from "antd";
import { beijingDateTime } from "#shared/beijing-time";
import type { PublicPackage, PublicTool } from "#shared/catalog";
import { packageName } from "#shared/tool-text";
import { useLanguage, useT } from "../../i18n";
import { refreshUserInfo } from "../../lib/api/get-user-info";
import { toolsQueryOptions, useToolName } from "../../lib/api/list-tools";
import { ApiError } from "../../lib/http";
import { withCurrency } from "../../lib/money-format";
import { toast } from "../../lib/toast";
import { buyPackage } from "./api/buy-package";
import { lotsQueryKey } from "../../lib/api/list-lots";
import { unitsText } from "../../lib/units-text";
import "./plans.css";

const DAY = 86_400_000;

/**
 * Choose a tool and one of its packages, confirm (price, units, expiry, no refund of unused units),
 * and pay from the balance; the balance and the lots above update. A refusal (a balance too small)
 * stays in the dialog, in the server's words.
 */
export function BuyPackage() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const queryClient = useQueryClient();
  const toolName = useToolName();
  const selling = (useQuery(toolsQueryOptions()).data ?? []).filter((tool) => tool.packages.length > 0);
  const [toolId, setToolId] = useState<string | undefined>();
  const [packageId, setPackageId] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<{ tool: PublicTool; pkg: PublicPackage; at: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const tool = selling.find((candidate) => candidate.id === toolId);
  const pkg = tool?.packages.find((candidate) => candidate.id === packageId);

  const confirm = () => {
    if (tool && pkg) setConfirming({ tool, pkg, at: new Date().getTime() });
  };

  const close = () => {
    setConfirming(null);
    setRefusal(null);
  };

  const pay = async () => {
    if (!confirming) return;
    setBusy(true);
    setRefusal(null);
    try {
      const { lot } = await buyPackage(confirming.tool.id, confirming.pkg.id);
      toast("success", t("plans.bought", { name: packageName(confirming.pkg, language), units: unitsText(t, lot.unitsGranted, confirming.tool, language) }));
      close();
      await Promise.all([refreshUserInfo(), queryClient.invalidateQueries({ queryKey: lotsQueryKey })]);
    } catch (e) {
      if (e instanceof ApiError && (e.status === 402 || e.status === 404)) setRefusal(e.message);
      else if (!(e instanceof ApiError)) throw e;
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="buy-package" style={{ marginTop: 24 }}>
      <Typography.Title level={4}>{t("plans.buyTitle")}</Typography.Title>
      {selling.length === 0 ? (
        <Typography.Paragraph type="secondary">{t("plans.noPackages")}</Typography.Paragraph>
      ) : (
        <>
          <Typography.Paragraph type="secondary">{t("plans.buyIntro")}</Typography.Paragraph>
          <Form layout="inline" className="buy-package-form" onFinish={confirm}>
            <Form.Item label={t("plans.tool")} htmlFor="buy-package-tool" className="buy-package-item">
              <Select
                id="buy-package-tool"
                style={{ width: 180, maxWidth: "100%" }}
                placeholder={t("plans.toolPlaceholder")}
                value={toolId}
                onChange={(id: string) => {
                  setToolId(id);
                  setPackageId(undefined);
                }}
                options={selling.map((candidate) => ({ value: candidate.id, label: toolName(candidate.id) }))}
                data-testid="buy-package-tool"
              />
            </Form.Item>
            <Form.Item label={t("plans.package")} htmlFor="buy-package-package" className="buy-package-item buy-package-item-wide">
              <Select
                id="buy-package-package"
                style={{ width: "100%" }}
                classNames={{ popup: { listItem: "buy-package-option" } }}
                placeholder={t("plans.packagePlaceholder")}
                disabled={!tool}
                value={packageId}
                onChange={setPackageId}
                options={(tool?.packages ?? []).map((candidate) => ({
                  value: candidate.id,
                  label: t("plans.packageOption", {
                    name: packageName(candidate, language),
                    units: unitsText(t, candidate.units, tool, language),
                    price: withCurrency(candidate.price),
                    days: candidate.validDays,
                  }),
                }))}
                data-testid="buy-package-package"
              />
            </Form.Item>
            <Form.Item>
              <Button type="primary" htmlType="submit" disabled={!pkg} data-testid="buy-package-submit">
                {t("plans.buy")}
              </Button>
            </Form.Item>
          </Form>
        </>
      )}
      {confirming ? (
        <Modal
          open
          title={t("plans.confirmTitle", { name: packageName(confirming.pkg, language), tool: toolName(confirming.tool.id) })}
          onCancel={close}
          mask={{ closable: false }}
          footer={[
            <Button key="cancel" onClick={close}>
              {t("plans.cancel")}
            </Button>,
            <Button key="pay" type="primary" loading={busy} onClick={() => void pay()} data-testid="buy-package-pay">
              {t("plans.confirmPay", { price: withCurrency(confirming.pkg.price) })}
            </Button>,
          ]}
        >
          <Descriptions column={1} size="small" bordered data-testid="buy-package-terms">
            <Descriptions.Item label={t("plans.confirmPrice")}>{withCurrency(confirming.pkg.price)}</Descriptions.Item>
            <Descriptions.Item label={t("plans.confirmUnits")}>{unitsText(t, confirming.pkg.units, confirming.tool, language)}</Descriptions.Item>
            <Descriptions.Item label={t("plans.confirmExpiry")}>
              {t("plans.confirmExpiryValue", { at: beijingDateTime(new Date(confirming.at + confirming.pkg.validDays * DAY)), days: confirming.pkg.validDays })}
            </Descriptions.Item>
          </Descriptions>
          <Alert type="warning" showIcon style={{ marginTop: 16 }} title={t("plans.noRefund")} />
          {refusal ? <Alert type="error" role="alert" showIcon style={{ marginTop: 16 }} title={refusal} data-testid="buy-package-refusal" /> : null}
        </Modal>
      ) : null}
    </div>
  );
}
