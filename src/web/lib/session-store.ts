import { create } from "zustand";
import type { UserInfo } from "#shared/user";
import { forgetToken, readStoredToken, storeToken } from "./token-storage";

/**
 * User info as the app keeps it: the balance floored to two decimals (SPEC.md §3) by refreshUserInfo,
 * which stores it, and the exact one where it differs ("(¥0.001)"), for a change smaller than a cent to show.
 */
/** `exactBalance`: every decimal of the balance, where SPEC's two (`balance`, floored) hide some. */
export type StoredUserInfo = UserInfo & { exactBalance?: string };

interface SessionState {
  token: string | null;
  userInfo: StoredUserInfo | null;
  loginModal: boolean;
  /** True once the token has been read from storage after hydration. */
  restored: boolean;
  restore(): void;
  setToken(token: string): void;
  setUserInfo(info: StoredUserInfo): void;
  clearUserInfo(): void;
  openLoginModal(): void;
  closeLoginModal(): void;
}

export const useSession = create<SessionState>()((set) => ({
  token: null,
  userInfo: null,
  loginModal: false,
  restored: false,
  restore: () => set({ token: readStoredToken(), restored: true }),
  setToken: (token) => {
    storeToken(token);
    set({ token });
  },
  setUserInfo: (info) => set({ userInfo: info }),
  clearUserInfo: () => {
    forgetToken();
    set({ token: null, userInfo: null });
  },
  openLoginModal: () => set({ loginModal: true }),
  closeLoginModal: () => set({ loginModal: false }),
}));
