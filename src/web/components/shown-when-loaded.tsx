import { useQueryClient } from "@tanstack/react-query";
import { Skeleton } from "antd";
import { useEffect, useState, type ReactNode } from "react";

/**
 * Shows its children once the data they fetch on mount has arrived (and `ready` holds), one
 * skeleton until then: the cards of a page appear together instead of each growing out of its own
 * skeleton and pushing the ones below it down (layout shift, issue 16). Later refetches do not
 * hide them again.
 */
export function ShownWhenLoaded({ ready = true, children }: { ready?: boolean; children: ReactNode }) {
  const queryClient = useQueryClient();
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (shown || !ready) return;
    // The children's effects, which start their queries, ran before this one: the count is theirs.
    // Once it is 0 the content gets a frame more, unseen, for what it does on receiving the data
    // (a form picking its default tool), so it appears in its final shape.
    let frame = 0;
    const check = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        if (queryClient.isFetching() === 0) frame = requestAnimationFrame(() => setShown(queryClient.isFetching() === 0));
      });
    };
    const unsubscribe = queryClient.getQueryCache().subscribe(check);
    check();
    return () => {
      unsubscribe();
      cancelAnimationFrame(frame);
    };
  }, [shown, ready, queryClient]);
  // Laid out but invisible until then, so what measures itself on mount (an auto-sized text area)
  // has its real size when it appears; the skeleton lies over it.
  return (
    <div className="shown-when-loaded">
      {shown ? null : <Skeleton active paragraph={{ rows: 6 }} className="shown-when-loaded-skeleton" data-testid="page-loading" />}
      <div className={shown ? undefined : "shown-when-loaded-pending"}>{children}</div>
    </div>
  );
}
