import { expect, test } from "@playwright/test";
import { loginViaApi, randomPhone } from "./support/auth";

test.describe("phone login through the API", () => {
  test("a new phone signs up, and its session reads the user info", async ({ request }) => {
    const phone = randomPhone();
    const { token } = await loginViaApi(request, phone);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await request.get("/api/v1/tools/user-info", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status()).toBe(200);
    expect(await res.json()).toMatchObject({ phone: `${phone.slice(0, 3)}****${phone.slice(7)}`, balance: "0.00" });
  });

  test("a second login of the same phone is the same user; logout ends the session", async ({ request }) => {
    const first = await loginViaApi(request);
    const second = await loginViaApi(request, first.phone);
    const info = async (token: string) => request.get("/api/v1/tools/user-info", { headers: { authorization: `Bearer ${token}` } });
    expect((await (await info(second.token)).json()).id).toBe((await (await info(first.token)).json()).id);
    const out = await request.post("/api/v1/auth/logout", { headers: { authorization: `Bearer ${second.token}` } });
    expect(out.status()).toBe(200);
    expect((await info(second.token)).status()).toBe(401);
    expect((await info(first.token)).status()).toBe(200);
  });

  test("a referral code sent at sign-up is counted for the referrer", async ({ request }) => {
    const referrer = await loginViaApi(request);
    const headers = { authorization: `Bearer ${referrer.token}` };
    const { referralCode } = (await (await request.get("/api/v1/tools/user-info", { headers })).json()) as { referralCode: string };
    await loginViaApi(request, randomPhone(), referralCode);
    const referrals = await request.get("/api/v1/console/referrals", { headers });
    expect((await referrals.json()).signups).toBe(1);
  });
});
