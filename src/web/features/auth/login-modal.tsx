import { useState } from "react";
import { Link } from "react-router";
import { App as AntApp, Button, Checkbox, ConfigProvider, Input, Modal } from "antd";
import { CODE_LENGTH, isValidCode, phoneProblem } from "#shared/phone";
import { useLanguage, useT, type Translate } from "../../i18n";
import "../../i18n/console-messages";
import { antdConfig } from "../../lib/antd-theme";
import { ApiError } from "../../lib/http";
import { useSession } from "../../lib/session-store";
import { siteConfig } from "../../lib/site-config";
import { toast } from "../../lib/toast";
import { refreshUserInfo } from "../../lib/api/get-user-info";
import { login } from "./api/login";
import { requestCode, type CodeResponse } from "./api/request-code";
import { rememberedReferral } from "./referral";
import { useCaptcha } from "./use-captcha";
import { useCountdown } from "./use-countdown";
import { useMediaQuery } from "../../lib/use-media-query";
import "./login-modal.css";

/** The server's refusal in the reader's language, when the server said which refusal it was. */
function refusalText(t: Translate, response: CodeResponse): string | null {
  if (!response.reason) return null;
  const seconds = response.retryAfterSeconds ?? 0;
  const wait =
    seconds <= 90
      ? t("login.wait.seconds", { n: Math.max(1, seconds) })
      : seconds <= 5400
        ? t("login.wait.minutes", { n: Math.ceil(seconds / 60) })
        : t("login.wait.hours", { n: Math.ceil(seconds / 3600) });
  return t(`login.refusals.${response.reason}`, { wait });
}
const WIDE_SCREEN = "(min-width: 1025px)";

/**
 * SPEC.md §2's login modal: one flow for login and sign-up. Mounted only while open, so closing
 * it (the close icon, never the mask) drops the phone, the code, the consent tick and the countdown.
 */
export default function LoginModal() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const close = useSession((s) => s.closeLoginModal);
  const wide = useMediaQuery(WIDE_SCREEN);
  const [phone, setPhone] = useState("");
  const [code, setCode] = useState("");
  const [agreed, setAgreed] = useState(false);
  /** A code was asked for before the box was ticked: the reminder shows under it until it is. */
  const [consentAsked, setConsentAsked] = useState(false);
  const [touched, setTouched] = useState({ phone: false, code: false });
  const [sending, setSending] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const countdown = useCountdown();
  const { awaitCaptcha, hostRef } = useCaptcha(language);

  const phoneIssue = phoneProblem(phone);
  const codeValid = isValidCode(code);
  const phoneMessage =
    touched.phone && phoneIssue ? t(phoneIssue === "required" ? "login.phoneRequired" : "login.phoneInvalid") : "";
  const codeMessage = touched.code && !codeValid ? t("login.codeInvalid") : "";
  const canLogin = phoneIssue === null && codeValid && agreed && !submitting;

  const getCode = async () => {
    setTouched((s) => ({ ...s, phone: true }));
    if (phoneIssue) return;
    if (!agreed) return setConsentAsked(true);
    setSending(true);
    try {
      const captcha = await awaitCaptcha();
      if (!captcha) return toast("error", t("login.captchaNotLoaded"));
      const captchaResult = await captcha.solve();
      if (!captchaResult) return;
      let response;
      try {
        response = await requestCode({ telephone: phone, captchaResult });
      } catch (error) {
        const tooMany = error instanceof ApiError && error.status === 429;
        return toast("error", tooMany ? t("errors.tooManyRequests") : t("login.sendFailed"));
      }
      if (response.status === "success") {
        // The server's words are English (SPEC.md §8's 'server message'); another language says it in its own.
        toast("success", (language === "en" && response.message) || t("login.codeSent"));
        countdown.start(siteConfig.codeResendSeconds);
      } else {
        toast("error", refusalText(t, response) ?? (response.message || t("login.codeSendingFailed")));
      }
    } finally {
      setSending(false);
    }
  };

  const submit = async () => {
    if (!canLogin) return;
    setSubmitting(true);
    try {
      const { csrf_token } = await login({ telephone: phone, code, recommendCode: rememberedReferral() });
      useSession.getState().setToken(csrf_token);
      await refreshUserInfo();
      close();
    } catch (error) {
      // A disabled account is told so in the reader's language; the shared client has reported anything else (SPEC.md §8).
      if (error instanceof ApiError && error.status === 403) toast("error", error.message);
    } finally {
      setSubmitting(false);
    }
  };

  const codeButtonLabel = countdown.secondsLeft > 0 ? t("login.resendIn", { seconds: countdown.secondsLeft }) : t("login.getCode");

  return (
    <ConfigProvider {...antdConfig}>
      <AntApp>
        <Modal
          open
          title={t("login.title")}
          onCancel={close}
          maskClosable={false}
          keyboard={false}
          footer={null}
          centered
          width={wide ? 640 : "90%"}
          closable={{ "aria-label": t("login.close") }}
          rootClassName={wide ? "login-modal login-modal-wide" : "login-modal"}
          styles={{ container: { height: wide ? 412 : 320, padding: 0 }, body: { height: "100%" } }}
        >
          <div className="login-modal-layout" data-testid="login-modal">
            {wide ? (
              <aside className="login-modal-art" data-testid="login-modal-art" aria-hidden="true">
                <strong>{siteConfig.siteName}</strong>
                <span>{t("login.tagline")}</span>
              </aside>
            ) : null}
            <form
              className="login-modal-form"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                void submit();
              }}
            >
              <div className="login-modal-field">
                <Input
                  size="large"
                  inputMode="numeric"
                  autoComplete="tel-national"
                  // Where a visitor starts; not on a phone, where it would open the keyboard over the dialog at once.
                  autoFocus={wide}
                  aria-label={t("login.phone")}
                  placeholder={t("login.phonePlaceholder")}
                  value={phone}
                  status={phoneMessage ? "error" : undefined}
                  onChange={(e) => setPhone(e.target.value.trim())}
                  onBlur={() => setTouched((s) => ({ ...s, phone: true }))}
                />
                <div className="login-modal-error" role="alert">
                  <span data-testid="phone-error">{phoneMessage}</span>
                  {touched.phone && phoneIssue === "invalid" ? (
                    <span className="login-modal-hint" data-testid="phone-hint">
                      {" "}
                      {t("login.phoneMainlandOnly")}
                    </span>
                  ) : null}
                </div>
              </div>
              <div className="login-modal-field">
                <div className="login-modal-code">
                  <Input
                    size="large"
                    inputMode="numeric"
                    autoComplete="one-time-code"
                    aria-label={t("login.code")}
                    placeholder={t("login.codePlaceholder")}
                    maxLength={CODE_LENGTH}
                    value={code}
                    status={codeMessage ? "error" : undefined}
                    onChange={(e) => setCode(e.target.value.trim())}
                    onBlur={() => setTouched((s) => ({ ...s, code: true }))}
                  />
                  <Button
                    size="large"
                    onClick={() => void getCode()}
                    loading={sending}
                    disabled={countdown.secondsLeft > 0}
                    data-testid="get-code"
                  >
                    {codeButtonLabel}
                  </Button>
                </div>
                <div className="login-modal-error" role="alert" data-testid="code-error">
                  {codeMessage}
                </div>
              </div>
              <div ref={hostRef} className="login-modal-captcha" />
              <Checkbox className="login-modal-consent" checked={agreed} onChange={(e) => setAgreed(e.target.checked)} data-testid="consent">
                {t("login.consentPrefix")} <Link to="/protocol-serve" target="_blank">{t("login.userAgreement")}</Link> {t("login.and")}{" "}
                <Link to="/privacy" target="_blank">{t("login.privacyAgreement")}</Link>
              </Checkbox>
              <div className="login-modal-error login-modal-consent-error" role="alert" data-testid="consent-error">
                {consentAsked && !agreed ? t("login.consentMissing") : ""}
              </div>
              <Button type="primary" size="large" htmlType="submit" block disabled={!canLogin} loading={submitting} data-testid="login-submit">
                {t("login.submit")}
              </Button>
            </form>
          </div>
        </Modal>
      </AntApp>
    </ConfigProvider>
  );
}
