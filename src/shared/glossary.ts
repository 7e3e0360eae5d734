/**
 * The Simplified Chinese words for the platform's terms, one per term, for the site's zh-CN
 * catalogue (src/web/i18n/zh-CN.ts) and the zh-CN docs (docs/site/zh-CN) alike. `avoid` lists
 * the other words a writer might reach for; tests/unit/docs-languages.test.ts fails when a zh-CN
 * docs page or the catalogue uses one of them.
 */
export interface GlossaryTerm {
  en: string;
  zh: string;
  avoid: readonly string[];
}

export const GLOSSARY = [
  { en: "balance", zh: "余额", avoid: ["账户金额", "剩余金额", "结余"] },
  { en: "API key", zh: "API 密钥", avoid: ["API Key", "API key", "APIKey", "API 秘钥", "API秘钥", "API密钥", "秘钥", "API 令牌", "访问密钥"] },
  { en: "call", zh: "调用", avoid: ["呼叫"] },
  { en: "top up", zh: "充值", avoid: ["储值", "充钱", "加值"] },
  { en: "redemption code", zh: "兑换码", avoid: ["激活码", "卡密", "充值码", "充值卡", "礼品码"] },
  { en: "hold", zh: "预扣", avoid: ["冻结", "预授权", "预占"] },
  { en: "refund", zh: "退款", avoid: ["退费", "返款"] },
  { en: "charge (a call)", zh: "扣费", avoid: ["扣款"] },
  { en: "spend limit", zh: "消费限额", avoid: ["花费上限", "消费上限", "支出限额", "额度上限"] },
  { en: "billing details", zh: "消费明细", avoid: ["账单明细", "消费记录", "调用记录"] },
  { en: "call log", zh: "调用日志", avoid: ["调用历史", "请求日志"] },
  { en: "charge details", zh: "充值明细", avoid: ["充值详情"] },
  { en: "low-balance alert", zh: "余额不足提醒", avoid: ["余额预警", "低余额提醒", "余额告警", "低余额告警"] },
  { en: "signing secret", zh: "签名密钥", avoid: ["签名秘钥", "签名密码"] },
  { en: "console", zh: "控制台", avoid: ["管理后台", "用户后台"] },
  { en: "IP allowlist", zh: "IP 白名单", avoid: ["IP 允许列表", "IP 许可列表", "IP白名单"] },
  { en: "request id", zh: "请求 ID", avoid: ["请求编号", "请求ID"] },
  { en: "verification code", zh: "验证码", avoid: ["校验码", "动态码"] },
  { en: "usage (units of a call)", zh: "用量", avoid: ["单位数"] },
  { en: "token (of an LLM's text)", zh: "token", avoid: ["词元"] },
  { en: "free quota", zh: "免费额度", avoid: ["免费配额", "试用额度", "免费次数"] },
  { en: "package (of a tool's units, bought or granted)", zh: "次数包", avoid: ["资源包", "流量包", "套餐包", "次数套餐"] },
  { en: "tiers (prices by a month's use)", zh: "阶梯价", avoid: ["阶梯定价", "梯度价格", "阶梯计费"] },
] as const satisfies readonly GlossaryTerm[];

/** The zh-CN pages address the reader as 您, never 你. */
export const INFORMAL_YOU = "你";
