import { CALL_OUTCOMES, STATUS_CLASSES, type CallOutcome } from "#shared/call-outcomes";

/** What the "all calls" view shows, all of it in the page's URL so a view can be shared and reloaded. */
export interface CallsView {
  /** Inclusive Beijing days as typed in a date field (`YYYY-MM-DD`), or "". */
  fromDay: string;
  toDay: string;
  toolId?: string;
  keyId?: number;
  outcome?: CallOutcome;
  status?: (typeof STATUS_CLASSES)[number];
  charged?: "true" | "false";
  slowerThanMs?: number;
  /** The call whose detail is open. */
  requestId?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined => (values as readonly (string | null)[]).includes(value) ? (value as T) : undefined;
const whole = (value: string | null) => (value !== null && /^\d{1,9}$/.test(value) ? Number(value) : undefined);

/** The view a URL names; what it names wrongly (a hand-edited link) is left out, not refused. */
export function viewFromParams(params: URLSearchParams): CallsView {
  const day = (name: string) => {
    const value = params.get(name) ?? "";
    return DAY.test(value) ? value : "";
  };
  const keyId = whole(params.get("key"));
  return {
    fromDay: day("from"),
    toDay: day("to"),
    toolId: params.get("tool") || undefined,
    keyId: keyId && keyId > 0 ? keyId : undefined,
    outcome: oneOf(CALL_OUTCOMES, params.get("outcome")),
    status: oneOf(STATUS_CLASSES, params.get("status")),
    charged: oneOf(["true", "false"] as const, params.get("charged")),
    slowerThanMs: whole(params.get("slower")),
    requestId: params.get("request")?.trim() || undefined,
  };
}

/** `params` with the view written into it (other parameters, such as the tab, kept). */
export function paramsWithView(params: URLSearchParams, view: CallsView): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (name: string, value: string | number | undefined) => (value === undefined || value === "" ? next.delete(name) : next.set(name, String(value)));
  set("from", view.fromDay);
  set("to", view.toDay);
  set("tool", view.toolId);
  set("key", view.keyId);
  set("outcome", view.outcome);
  set("status", view.status);
  set("charged", view.charged);
  set("slower", view.slowerThanMs);
  set("request", view.requestId);
  return next;
}
