import { loadChunk } from "./chunk-reload";

/** SPEC.md §9: toasts last 3000 ms. */
export const TOAST_DURATION_SECONDS = 3;

type Kind = "success" | "error" | "info" | "warning";

let messageApi: Promise<typeof import("antd")["message"]> | null = null;

/** antd is heavy, so it is fetched only when the first toast is shown, keeping it off the landing page. */
function loadMessage() {
  messageApi ??= loadChunk(() => import("./antd-theme")).then(({ configureStaticAntd, message }) => {
    configureStaticAntd();
    message.config({ duration: TOAST_DURATION_SECONDS, maxCount: 3 });
    return message;
  });
  return messageApi;
}

export function toast(kind: Kind, content: string, durationSeconds = TOAST_DURATION_SECONDS): void {
  void loadMessage().then((message) => message.open({ type: kind, content, duration: durationSeconds }));
}
