/** Every page of SPEC.md §2 a reader can open, with its tab title in each language, and a path that is none. */
export const PAGES = [
  { path: "/", title: "Tollgate — metered developer APIs", zhTitle: "Tollgate — 按量计费的开发者 API" },
  { path: "/privacy", title: "Privacy Agreement — Tollgate", zhTitle: "隐私协议 — Tollgate" },
  { path: "/protocol-serve", title: "User Agreement — Tollgate", zhTitle: "用户协议 — Tollgate" },
  { path: "/service-level", title: "Service Level Agreement — Tollgate", zhTitle: "服务等级协议 — Tollgate" },
  { path: "/console/info", title: "Account — Tollgate", zhTitle: "账户 — Tollgate" },
  { path: "/console/api-keys", title: "API keys — Tollgate", zhTitle: "API 密钥 — Tollgate" },
  { path: "/console/apply", title: "Apply for access — Tollgate", zhTitle: "申请权限 — Tollgate" },
  { path: "/console/billing-details", title: "Billing details — Tollgate", zhTitle: "消费明细 — Tollgate" },
  { path: "/console/charge-details", title: "Charge details — Tollgate", zhTitle: "充值明细 — Tollgate" },
] as const;

export const NOT_FOUND_PATH = "/no-such-page";
