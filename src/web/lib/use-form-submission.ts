import { useMemo, useRef } from "react";
import { newIdempotencyKey } from "./http";

export interface FormSubmission {
  /**
   * The Idempotency-Key of the form as filled now, or null while a submission of it is in flight:
   * the caller drops that click. antd runs a form's submit after its async validation and a button
   * shows loading only after a render, so both clicks of a double click reach the submit handler.
   */
  start(): string | null;
  /** The submission was answered (or failed): the form may be sent again, with the same key. */
  settled(): void;
  /** The form changed or its submission succeeded: the next one is a new request, with a new key. */
  forget(): void;
}

/**
 * One submission at a time of a form whose POST creates something, with one Idempotency-Key per
 * filled form: a double click creates one, and a resend after a lost answer gets the same one back.
 */
export function useFormSubmission(): FormSubmission {
  const sending = useRef(false);
  const key = useRef<string | null>(null);
  return useMemo(
    () => ({
      start() {
        if (sending.current) return null;
        sending.current = true;
        return (key.current ??= newIdempotencyKey());
      },
      settled() {
        sending.current = false;
      },
      forget() {
        key.current = null;
      },
    }),
    [],
  );
}
