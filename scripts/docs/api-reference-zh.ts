/**
 * The console API reference's Chinese: each endpoint's summary by `METHOD /path` and each group's
 * title. The server's route schemas hold the English; a route missing here is shown with its
 * English summary, and tests/unit/docs-site.test.ts names it.
 */
export const SUMMARY_ZH: Record<string, string> = {
  "GET /api/v1/health": "存活检查与数据库连通性",
  "GET /api/v1/ready": "就绪检查：数据库（或其他已配置的依赖）无法访问或进程正在关闭时返回 503",
  "GET /api/v1/tools": "带价格的公开工具目录",
  "GET /api/v1/auth/captcha": "浏览器在获取验证码之前运行的人机验证",
  "GET /api/v1/auth/captcha/altcha/challenge": "为 altcha 组件生成新的工作量证明挑战",
  "POST /api/v1/auth/phone/verification_code": "向手机号发送登录验证码",
  "POST /api/v1/auth/phone/login": "用手机号和验证码登录或注册",
  "POST /api/v1/auth/logout": "结束本会话",
  "POST /api/v1/auth/logout-all": "结束该用户的所有会话",
  "GET /api/v1/console/payment-methods": "本站提供的充值支付方式",
  "POST /api/v1/console/payments": "发起充值：在支付服务商处创建订单，返回支付页面或二维码",
  "GET /api/v1/console/payments/{orderId}": "您的某个充值订单的状态；待支付的订单会先向支付服务商查询",
  "GET /api/v1/console/credits": "余额入账记录，最新的在前，并给出筛选结果的合计",
  "GET /api/v1/console/credits.csv": "筛选后的入账记录，以 CSV 流式导出（时间、方式、金额、状态、参考号）",
  "POST /api/v1/console/redeem": "使用兑换码：其金额计入余额",
  "POST /api/v1/payments/{provider}/notify": "支付服务商的异步支付通知（已签名；支付宝提交表单，微信支付提交加密的 JSON）",
  "GET /api/v1/console/keys": "列出您的 API 密钥",
  "POST /api/v1/console/keys": "创建 API 密钥；响应中包含完整的密钥，仅显示这一次",
  "PATCH /api/v1/console/keys/{id}": "重命名密钥、修改其限制，或停用和启用它",
  "DELETE /api/v1/console/keys/{id}": "删除密钥；它立即停止工作",
  "GET /api/v1/console/applications": "您的权限申请，以及需要申请的工具",
  "POST /api/v1/console/applications": "申请使用一个需要审批的工具",
  "GET /api/v1/tools/user-info": "当前登录的用户及其余额",
  "GET /api/v1/console/referrals": "您的邀请链接，以及通过它注册的用户数",
  "GET /api/v1/console/usage": "每天的调用次数和消费金额",
  "GET /api/v1/console/runway": "按最近 7 天的平均消费，余额还能用多久",
  "GET /api/v1/console/billing": "扣费的调用，最新的在前，并给出筛选结果的合计",
  "GET /api/v1/console/billing.csv": "筛选后的扣费调用，以 CSV 流式导出（时间、工具、密钥、用量、金额、请求 ID）",
  "GET /api/v1/console/alerts": "您的余额不足提醒设置，以及最近发送的提醒",
  "PUT /api/v1/console/alerts": "设置提醒阈值和 Webhook 地址；首次设置 Webhook 地址时的签名密钥仅在本次响应中给出",
  "POST /api/v1/console/alerts/webhook-secret": "更换 Webhook 签名密钥；新的签名密钥仅在本次响应中给出",
  "POST /api/v1/console/alerts/test": "立即向您的 Webhook 发送一个签名的测试事件",
};

export const TAG_ZH: Record<string, string> = {
  system: "系统",
  tools: "工具",
  auth: "登录",
  credits: "充值与入账",
  payments: "支付通知",
  "api keys": "API 密钥",
  "api-keys": "API 密钥",
  applications: "权限申请",
  account: "账户",
  billing: "消费明细",
  alerts: "余额不足提醒",
};
