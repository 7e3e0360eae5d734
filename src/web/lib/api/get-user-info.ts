import { floorMoneyTo2, formatMoney, parseMoney } from "#shared/money";
import type { UserInfo } from "#shared/user";
import { api } from "../http";
import { useSession } from "../session-store";

export const USER_INFO_PATH = "/api/v1/tools/user-info";

export function getUserInfo(): Promise<UserInfo> {
  return api<UserInfo>(USER_INFO_PATH);
}

/** Fetches the user and stores it (balance floored); a 401 is handled by the shared client. */
export async function refreshUserInfo(): Promise<void> {
  const info = await getUserInfo();
  const balance = floorMoneyTo2(info.balance);
  const exact = formatMoney(parseMoney(info.balance));
  useSession.getState().setUserInfo({ ...info, balance, ...(exact !== balance && { exactBalance: exact }) });
}

let pending: Promise<void> | null = null;

/**
 * The user info when the app has none: one request however many ask at once (the root once the
 * session is restored, a console page's loader before it).
 */
export function loadUserInfo(): Promise<void> {
  if (useSession.getState().userInfo) return Promise.resolve();
  pending ??= refreshUserInfo().finally(() => {
    pending = null;
  });
  return pending;
}
