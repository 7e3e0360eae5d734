import { useQuery } from "@tanstack/react-query";
import { Alert, Button, Drawer, Flex, Skeleton, Typography } from "antd";
import { lazy, Suspense, useState } from "react";
import { useSearchParams } from "react-router";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { keysQueryOptions } from "../../lib/api/list-keys";
import { toolsQueryOptions } from "../../lib/api/list-tools";
import { triesQueryOptions } from "../../features/tries/api/tries";
import { loadConsoleData } from "../../lib/console-data";
import { useSession } from "../../lib/session-store";
import { CreateKeyModal } from "../../features/api-keys/create-key-modal";
import { KeysTable } from "../../features/api-keys/keys-table";

/** Try it's panel, loaded when it is first opened. */
const TryPanel = lazy(() => import("../../features/tries/try-panel"));

/** The user info and the keys, at once (decision 037); with Try it open, the tools and the last tries too. */
export function clientLoader({ request }: { request: Request }) {
  const trying = new URL(request.url).searchParams.has("try");
  return loadConsoleData((client, token) => [
    client.prefetchQuery(keysQueryOptions(token)),
    ...(trying ? [client.prefetchQuery(toolsQueryOptions()), client.prefetchQuery(triesQueryOptions(token))] : []),
  ]);
}

export default function ConsoleApiKeysPage() {
  const t = useT();
  const token = useSession((s) => s.token);
  const keys = useQuery(keysQueryOptions(token));
  const [params, setParams] = useSearchParams();
  // /console/api-keys?create opens the form straight away (the account page links here).
  const [creating, setCreating] = useState(() => params.has("create"));
  const closeCreate = () => {
    setCreating(false);
    if (params.has("create")) setParams({}, { replace: true });
  };
  const trying = params.has("try");
  const closeTry = () => {
    const next = new URLSearchParams(params);
    next.delete("try");
    next.delete("key");
    setParams(next, { replace: true });
  };
  const count = keys.data?.keys.length ?? 0;
  const max = keys.data?.max ?? 0;
  const full = keys.data !== undefined && count >= max;
  return (
    <section data-testid="console-api-keys">
      {/* The title and intro show at once, as the page's HTML already did (scripts/console-shells.ts);
          the key count arrives with the keys, laid out but unseen until then, so it moves nothing. */}
      <Flex justify="space-between" align="center" wrap gap={12}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          {t("nav.apiKeys")}
        </Typography.Title>
        <Flex align="center" gap={12} className={keys.isPending ? "shown-when-loaded-pending" : undefined}>
          <Typography.Text type="secondary">{t("apiKeys.count", { count, max })}</Typography.Text>
          <Button type="primary" disabled={full} onClick={() => setCreating(true)} data-testid="create-key">
            {t("apiKeys.create")}
          </Button>
        </Flex>
      </Flex>
      <Typography.Paragraph type="secondary">{t("apiKeys.intro")}</Typography.Paragraph>
      <ShownWhenLoaded>
        {full ? <Alert type="info" showIcon title={t("apiKeys.limitReached", { max })} style={{ marginBottom: 16 }} /> : null}
        <KeysTable keys={keys.data?.keys ?? []} loading={keys.isPending} />
      </ShownWhenLoaded>
      <CreateKeyModal open={creating} onClose={closeCreate} />
      <Drawer
        open={trying}
        onClose={closeTry}
        title={t("nav.tryIt")}
        size="large"
        destroyOnHidden
        data-testid="try-drawer"
      >
        <Typography.Paragraph type="secondary">{t("tries.intro")}</Typography.Paragraph>
        {keys.data?.keys.length === 0 ? (
          <Button type="primary" onClick={() => setCreating(true)}>
            {t("apiKeys.create")}
          </Button>
        ) : null}
        <Suspense fallback={<Skeleton active />}>{trying ? <TryPanel /> : null}</Suspense>
      </Drawer>
    </section>
  );
}
