import { useCallback, useEffect, useRef } from "react";
import { getCaptchaConfig } from "./api/get-captcha-config";
import { loadCaptcha, type Captcha } from "./captcha";

/**
 * Starts loading the captcha when the modal opens, so it is usually ready by the time a code is
 * requested. `awaitCaptcha` resolves with it, or null when its script could not be loaded.
 */
export function useCaptcha(language: string) {
  const hostRef = useRef<HTMLDivElement | null>(null);
  const pending = useRef<Promise<Captcha | null>>(Promise.resolve(null));
  useEffect(() => {
    let loaded: Captcha | null = null;
    let cancelled = false;
    pending.current = getCaptchaConfig()
      .then((config) => {
        if (!hostRef.current) throw new Error("captcha host missing");
        return loadCaptcha(config, hostRef.current, language);
      })
      .then((captcha) => {
        loaded = captcha;
        if (cancelled) captcha.dispose();
        return captcha;
      })
      .catch((error: unknown) => {
        // The login form says the captcha did not load; the cause goes to the console.
        console.error("the captcha could not be loaded", error);
        return null;
      });
    return () => {
      cancelled = true;
      loaded?.dispose();
    };
  }, [language]);
  const awaitCaptcha = useCallback(() => pending.current, []);
  return { awaitCaptcha, hostRef };
}
