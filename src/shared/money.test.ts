import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_AMOUNT, MAX_MICROS, MoneyFormatError, floorMoneyTo2, formatMoney, moneyProblem, parseMoney } from "./money";

const MIN_MICROS = -MAX_MICROS - 1n;
const anyMicros = fc.bigInt({ min: MIN_MICROS, max: MAX_MICROS });

/** A decimal string built digit by digit, with its exact value computed independently of the module. */
const decimalString = fc
  .record({
    negative: fc.boolean(),
    whole: fc.bigInt({ min: 0n, max: 9_223_372_036_853n }),
    fraction: fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 0, maxLength: 6 }),
  })
  .map(({ negative, whole, fraction }) => ({
    text: `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`,
    micros: (negative ? -1n : 1n) * (whole * 1_000_000n + BigInt(fraction.padEnd(6, "0"))),
  }));

describe("money (property tests)", () => {
  it("format then parse gives back every amount up to 2^63-1 micro-units, without loss", () => {
    fc.assert(
      fc.property(anyMicros, (micros) => {
        expect(parseMoney(formatMoney(micros))).toBe(micros);
      }),
      { numRuns: 5000 },
    );
  });

  it("keeps the extremes exact", () => {
    expect(formatMoney(MAX_MICROS)).toBe("9223372036854.775807");
    expect(parseMoney("9223372036854.775807")).toBe(MAX_MICROS);
    expect(parseMoney(formatMoney(MIN_MICROS))).toBe(MIN_MICROS);
  });

  it("parses a decimal string to its exact value, and formatting it again gives the same number", () => {
    fc.assert(
      fc.property(decimalString, ({ text, micros }) => {
        expect(parseMoney(text)).toBe(micros);
        expect(parseMoney(formatMoney(parseMoney(text)))).toBe(micros);
      }),
      { numRuns: 5000 },
    );
  });

  it("formats with two to six decimals and never an exponent", () => {
    fc.assert(
      fc.property(anyMicros, (micros) => {
        expect(formatMoney(micros)).toMatch(/^-?\d+\.\d{2,6}$/);
      }),
    );
  });

  it("floors to two decimals: never above the amount, less than a cent below it, a whole number of cents", () => {
    fc.assert(
      fc.property(anyMicros.filter((m) => m >= MIN_MICROS + 10_000n), (micros) => {
        const floored = floorMoneyTo2(formatMoney(micros));
        expect(floored).toMatch(/^-?\d+\.\d{2}$/);
        const back = parseMoney(floored);
        expect(back <= micros).toBe(true);
        expect(micros - back < 10_000n).toBe(true);
        expect(back % 10_000n).toBe(0n);
      }),
      { numRuns: 5000 },
    );
  });

  it("floors non-negative amounts by cutting the digits after the second decimal", () => {
    fc.assert(
      fc.property(decimalString.filter(({ text }) => !text.startsWith("-")), ({ text }) => {
        const [whole, fraction = ""] = text.split(".");
        expect(floorMoneyTo2(text)).toBe(`${BigInt(whole!)}.${fraction.slice(0, 2).padEnd(2, "0")}`);
      }),
      { numRuns: 5000 },
    );
  });

  it("is exact where binary floating point is not", () => {
    expect(floorMoneyTo2("0.29")).toBe("0.29");
    expect(floorMoneyTo2("12.999")).toBe("12.99");
    expect(floorMoneyTo2("-0.001")).toBe("-0.01");
    expect(formatMoney(parseMoney("0.1") + parseMoney("0.2"))).toBe("0.30");
  });

  it("rejects what is not a plain decimal, and amounts beyond the 64-bit range", () => {
    for (const bad of ["", "1e3", "0x10", "1,000.00", "1.2345678", ".5", "1.", "12 34", "NaN", "Infinity", "9223372036854.775808", "-9223372036854.775809", "9999999999999.999999"]) {
      expect(() => parseMoney(bad), bad).toThrow(MoneyFormatError);
    }
  });

  it("tells an amount too large to hold from one that is not an amount", () => {
    expect(MAX_AMOUNT).toBe("9223372036854.775807");
    for (const fine of [MAX_AMOUNT, `-${MAX_AMOUNT}`, "12.5", " 0 "]) expect(moneyProblem(fine), fine).toBeNull();
    for (const large of ["9223372036854.775808", "9999999999999", "99999999999999999999", "-9223372036854.775809", " 10000000000000.5 "]) {
      expect(moneyProblem(large), large).toBe("outOfRange");
    }
    for (const bad of ["", "1e30", "1,000", "99999999999999.1234567", "--1", "abc"]) expect(moneyProblem(bad), bad).toBe("malformed");
  });
});
