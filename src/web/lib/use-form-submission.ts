import { useState } from "react";
import { newIdempotencyKey } from "./http";

export interface FormSubmission {
  /**
   * The Idempotency-Key for sending `body`, or null while a submission is in flight: the caller
   * drops that click. antd runs a form's submit after its async validation and a button shows
   * loading only after a render, so both clicks of a double click reach the submit handler. The
   * same body sent again gets the same key; another body (a field edited, or set by the page) a new one.
   */
  start(body: unknown): string | null;
  /** The submission was answered (or failed): the form may be sent again. */
  settled(): void;
  /** The submission succeeded: the next one, even of the same body, is a new request with a new key. */
  forget(): void;
}

/** One submission at a time, with one Idempotency-Key per body sent (`useFormSubmission`). */
export function formSubmission(): FormSubmission {
  let sending = false;
  let sent: { body: string; key: string } | null = null;
  return {
    start(body) {
      if (sending) return null;
      sending = true;
      const text = JSON.stringify(body);
      if (sent?.body !== text) sent = { body: text, key: newIdempotencyKey() };
      return sent.key;
    },
    settled() {
      sending = false;
    },
    forget() {
      sent = null;
    },
  };
}

/**
 * For a form that sends something: a double click sends it once, and a resend after a lost answer
 * carries the same Idempotency-Key, so it gets the first answer back (the key made, the secret shown).
 */
export function useFormSubmission(): FormSubmission {
  return useState(formSubmission)[0];
}
