import { Tabs, Typography } from "antd";
import { useSearchParams } from "react-router";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { BillingHistory } from "../../features/billing/billing-history";
import { billingQueryOptions } from "../../features/billing/api/list-billing";
import { AllCalls, callsFilterOf } from "../../features/calls/all-calls";
import { callsQueryOptions } from "../../features/calls/api/list-calls";
import { viewFromParams } from "../../features/calls/view-params";
import { keysQueryOptions } from "../../lib/api/list-keys";
import { toolsQueryOptions } from "../../lib/api/list-tools";
import { loadConsoleData } from "../../lib/console-data";

/** `?tab=calls` shows every call; the charges are the default tab. */
const CALLS_TAB = "calls";

/** The user info, the open tab's first page and the filters' tools and keys, at once (decision 037). */
export function clientLoader({ request }: { request: Request }) {
  const params = new URL(request.url).searchParams;
  const callsFilter = params.get("tab") === CALLS_TAB ? callsFilterOf(viewFromParams(params)) : null;
  return loadConsoleData((client, token) => [
    callsFilter ? client.prefetchInfiniteQuery(callsQueryOptions(callsFilter, token)) : client.prefetchInfiniteQuery(billingQueryOptions({}, token)),
    client.prefetchQuery(toolsQueryOptions()),
    client.prefetchQuery(keysQueryOptions(token)),
  ]);
}

/** Consumption: every charged call, what it cost and which key made it; and every call, whatever became of it. */
export default function ConsoleBillingDetailsPage() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const tab = params.get("tab") === CALLS_TAB ? CALLS_TAB : "charges";
  return (
    <section data-testid="console-billing-details">
      <Typography.Title level={2}>{t("nav.billingDetails")}</Typography.Title>
      <ShownWhenLoaded>
        <Tabs
          activeKey={tab}
          onChange={(key) => setParams(key === CALLS_TAB ? { tab: CALLS_TAB } : {}, { replace: true })}
          destroyOnHidden
          items={[
            {
              key: "charges",
              label: <span data-testid="tab-charges">{t("billing.tabs.charges")}</span>,
              children: (
                <>
                  <Typography.Paragraph type="secondary">{t("billing.intro")}</Typography.Paragraph>
                  <BillingHistory />
                </>
              ),
            },
            { key: CALLS_TAB, label: <span data-testid="tab-calls">{t("billing.tabs.calls")}</span>, children: <AllCalls /> },
          ]}
        />
      </ShownWhenLoaded>
    </section>
  );
}
