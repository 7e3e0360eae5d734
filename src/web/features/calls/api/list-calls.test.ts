import { QueryClient } from "@tanstack/react-query";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { callDetailQueryOptions } from "./list-calls";

const api = vi.hoisted(() => vi.fn());
vi.mock("../../../lib/http", () => ({ api }));

beforeEach(() => api.mockReset());

describe("one call by its request id", () => {
  it("finds no call for an id longer than any request id without asking the server, which would refuse it", async () => {
    const client = new QueryClient();
    expect(await client.fetchQuery(callDetailQueryOptions(`${"0".repeat(36)}0`, "token"))).toBeNull();
    expect(api).not.toHaveBeenCalled();
  });

  it("asks the server for an id of a request id's length, and finds no call where it answers 404", async () => {
    const id = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    api.mockRejectedValueOnce(Object.assign(new Error("no call"), { status: 404 }));
    expect(await new QueryClient().fetchQuery(callDetailQueryOptions(id, "token"))).toBeNull();
    expect(api).toHaveBeenCalledWith(`/api/v1/console/calls/${id}`, { quiet: [404] });
  });
});
