import { describe, expect, it } from "vitest";
import { formSubmission } from "./use-form-submission";

describe("a form's submissions", () => {
  it("drops a second submission while one is in flight, then sends again with the same key", () => {
    const submission = formSubmission();
    const key = submission.start({ name: "bot" });
    expect(key).toEqual(expect.any(String));
    expect(submission.start({ name: "bot" })).toBeNull();
    submission.settled();
    expect(submission.start({ name: "bot" })).toBe(key);
  });

  it("gives another body a new key, though no field was edited (the page set it), so the server never sees one key with two bodies", () => {
    const submission = formSubmission();
    const first = submission.start({ toolId: "pinyin" });
    submission.settled();
    const second = submission.start({ toolId: "ocr" });
    expect(second).not.toBe(first);
    submission.settled();
    expect(submission.start({ toolId: "pinyin" })).not.toBe(first);
  });

  it("gives the same body a new key once its submission succeeded: a second key of the same name is a new key", () => {
    const submission = formSubmission();
    const first = submission.start({ name: "bot" });
    submission.settled();
    submission.forget();
    expect(submission.start({ name: "bot" })).not.toBe(first);
  });
});
