import { describe, expect, it } from "vitest";
import { argvWithoutSecrets, maskSecrets } from "./secrets";

const KEY = `tg_${"Ab3_-x".repeat(7)}Q9zW`;

describe("maskSecrets", () => {
  it("keeps of a key what the console shows, and of a key's start only its public prefix", () => {
    expect(maskSecrets(`no user with phone or id "${KEY}"`)).toBe('no user with phone or id "tg_…Q9zW"');
    expect(maskSecrets(`Bearer ${KEY.slice(0, 20)} and more`)).toBe("Bearer tg_… and more");
    expect(maskSecrets("users find tg_…Q9zW")).toBe("users find tg_…Q9zW");
    expect(maskSecrets("tg_ alone")).toBe("tg_ alone");
  });

  it("masks a redemption code whole, dashed or spaced in groups of four, in any case; keeps request ids and ordinary words", () => {
    for (const code of ["K7PQ2XMD9RTW4HJB6NCE", "K7PQ-2XMD-9RTW-4HJB-6NCE", "k7pq 2xmd 9rtw 4hjb 6nce", "K7PQ - 2XMD-9RTW 4HJB-6NCE"]) {
      expect([code, maskSecrets(`code: ${code}.`)]).toEqual([code, "code: ****-6NCE."]);
    }
    for (const text of ["2b6f8c2e-5d3a-4c59-9a57-3e4f5f2d7c22", "a2b6f8c2-5d3a-4c59-9a57-3e4f5f2d7c22", "BEARERK7PQ2XMD9RTW4HJB6NCE", "chargeback on order 1234", "K7PQ-2XMD-9RTW-4HJB"]) {
      expect(maskSecrets(text)).toBe(text);
    }
  });
});

describe("argvWithoutSecrets", () => {
  it("masks a code typed across words as one word, and keeps every other word in its place", () => {
    expect(argvWithoutSecrets(["codes", "void", "3psf", "vkmb", "b9uz", "nbgk", "qw3g"])).toEqual(["codes", "void", "****-QW3G"]);
    expect(argvWithoutSecrets(["codes", "void", "x", "3PSF-VKMB", "B9UZ", "NBGK-QW3G", "--batch", ""])).toEqual(["codes", "void", "x", "****-QW3G", "--batch", ""]);
    expect(argvWithoutSecrets(["users", "find", ` ${KEY} `])).toEqual(["users", "find", " tg_…Q9zW "]);
    expect(argvWithoutSecrets(["codes", "void", "K7-PQ2XMD9RTW4HJB6N-CE"])).toEqual(["codes", "void", "****-6NCE"]);
    expect(argvWithoutSecrets([])).toEqual([]);
    expect(argvWithoutSecrets(["credit", "42", "0.5", "--reason", "ticket 881"])).toEqual(["credit", "42", "0.5", "--reason", "ticket 881"]);
  });
});
