export const CODE_SENT = "code sent successfully";
export const CAPTCHA_FAILED = "captcha verification failed, please try again";
export const SEND_FAILED = "failed to send code, please retry later";
export const CAPTCHA_UNAVAILABLE = "captcha service is unavailable, please retry later";
export const IP_LIMITED = "too many requests, please try later";
export const LOGIN_LIMITED = (wait: string) => `too many failed logins from this network, please retry in ${wait}`;

/** Why a code was not sent to a phone, and the sentence that tells the user when to retry. */
export const PHONE_REFUSALS = {
  cooldown: (wait: string) => `please wait ${wait} before requesting another code`,
  phone_hourly: (wait: string) => `too many codes requested for this number, please retry in ${wait}`,
  phone_daily: (wait: string) => `too many codes requested for this number today, please retry in ${wait}`,
  sms_budget: (wait: string) => `code sending is paused for now, please retry in ${wait}`,
} as const;

export type PhoneRefusal = keyof typeof PHONE_REFUSALS;
