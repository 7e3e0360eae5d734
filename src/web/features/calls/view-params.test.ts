import { describe, expect, it } from "vitest";
import { paramsWithView, viewFromParams } from "./view-params";

describe("the all-calls view in the URL", () => {
  it("reads back every filter it wrote, keeping the page's other parameters", () => {
    const view = { fromDay: "2026-03-01", toDay: "2026-03-02", toolId: "echo", keyId: 7, outcome: "insufficient_balance", status: "4xx", charged: "false", slowerThanMs: 250, requestId: "0b6f8c2e" } as const;
    const params = paramsWithView(new URLSearchParams("tab=calls"), view);
    expect(params.toString()).toBe("tab=calls&from=2026-03-01&to=2026-03-02&tool=echo&key=7&outcome=insufficient_balance&status=4xx&charged=false&slower=250&request=0b6f8c2e");
    expect(viewFromParams(params)).toEqual(view);
  });

  it("drops what a hand-edited link names wrongly, and clears what is unset", () => {
    expect(viewFromParams(new URLSearchParams("from=yesterday&key=-3&outcome=made_up&status=3xx&charged=maybe&slower=fast&request=%20"))).toEqual({ fromDay: "", toDay: "" });
    expect(paramsWithView(new URLSearchParams("tab=calls&outcome=served&request=x"), { fromDay: "", toDay: "" }).toString()).toBe("tab=calls");
  });
});
