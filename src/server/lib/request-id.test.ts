import { describe, expect, it } from "vitest";
import { REQUEST_ID_MAX_LENGTH } from "#shared/request-ids";
import { requestId } from "./request-id";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const timeOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe("requestId", () => {
  it("is a UUIDv7 that carries the millisecond it was made in", () => {
    for (const now of [0, 1, Date.UTC(2026, 10, 29, 20, 50), 2 ** 48 - 1]) {
      const id = requestId(now);
      expect(id).toMatch(UUID_V7);
      expect(id).toHaveLength(REQUEST_ID_MAX_LENGTH);
      expect(timeOf(id)).toBe(now);
    }
  });

  it("sorts ids of later milliseconds after earlier ones, as text", () => {
    const start = Date.UTC(2026, 10, 29, 23, 59, 59, 990);
    const ids = Array.from({ length: 40 }, (_, i) => requestId(start + Math.floor(i / 4)));
    for (let i = 4; i < ids.length; i++) expect(ids[i]! > ids[i - 4]!, `${ids[i]} after ${ids[i - 4]}`).toBe(true);
  });

  it("never repeats within a millisecond", () => {
    const ids = Array.from({ length: 10_000 }, () => requestId(1_800_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(15))).size).toBe(ids.length);
  });
});
