import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { runAdminCli } from "./support/admin-cli";
import { loginViaApi, signInPage } from "./support/auth";
import { SEED_CODES_FOR, readSeedCodes } from "./support/seed-codes";


const APPLICATION = {
  project: "Lantern Reader",
  useCase: "Pinyin over the text of children's picture books in our reading app.",
  calls: "20,000",
  contact: "dev@lantern.example",
};

const rows = (page: Page) => page.getByTestId("application-row");

/** Fills the apply page's form with APPLICATION, once the form offers Pinyin. */
async function fillApplication(page: Page) {
  await expect(page.getByTestId("application-tool")).toContainText("Pinyin");
  await page.getByLabel("Company or project").fill(APPLICATION.project);
  await page.getByLabel("Use case").fill(APPLICATION.useCase);
  await page.getByLabel("Expected monthly calls").fill(APPLICATION.calls);
  await page.getByLabel("Contact").fill(APPLICATION.contact);
}
const toastText = (page: Page, text: string) => page.locator(".ant-message").getByText(text, { exact: true });
const fieldError = (page: Page, text: string) => page.locator(".ant-form-item-explain-error").getByText(text, { exact: true });

function callPinyin(request: APIRequestContext, secret: string) {
  return request.post("/v1/tools/pinyin", { data: { text: "你好" }, headers: { authorization: `Bearer ${secret}` } });
}

test("apply, see it pending, approve from the CLI, see it approved, then call the tool (403 before)", async ({ page, request }) => {
  test.slow(); // the operator's CLI is a process of its own
  const { token } = await loginViaApi(request);
  const auth = { authorization: `Bearer ${token}` };
  const redeemed = await request.post("/api/v1/console/redeem", { data: { code: readSeedCodes().codes[SEED_CODES_FOR.applications] }, headers: auth });
  expect(redeemed.status(), await redeemed.text()).toBe(200);
  const key = await request.post("/api/v1/console/keys", { data: { name: "reader app" }, headers: auth });
  expect(key.status()).toBe(201);
  const { secret } = (await key.json()) as { secret: string };
  await signInPage(page, token);

  await page.goto("/console/apply");
  await expect(page.getByRole("heading", { name: "Apply for access" })).toBeVisible();
  await expect(page.getByText("No applications yet.")).toBeVisible();
  await expect(page.getByTestId("application-tool")).toContainText("Pinyin");

  await page.getByTestId("apply-submit").click();
  await expect(fieldError(page, "company or project is required")).toBeVisible();
  await expect(fieldError(page, "describe your use case")).toBeVisible();
  await expect(fieldError(page, "expected monthly calls is required")).toBeVisible();
  await expect(fieldError(page, "contact is required")).toBeVisible();

  await page.getByLabel("Company or project").fill(APPLICATION.project);
  await page.getByLabel("Use case").fill("pinyin");
  await page.getByLabel("Expected monthly calls").fill("12.5");
  await page.getByLabel("Contact").fill("call me");
  await expect(fieldError(page, "describe your use case in at least 10 characters")).toBeVisible();
  await expect(fieldError(page, "expected monthly calls must be a whole number such as 10000")).toBeVisible();
  await expect(fieldError(page, "contact must be a phone number or an e-mail address")).toBeVisible();
  await expect(fieldError(page, "company or project is required")).toBeHidden();

  await page.getByLabel("Use case").fill(APPLICATION.useCase);
  await page.getByLabel("Expected monthly calls").fill(APPLICATION.calls);
  await page.getByLabel("Contact").fill(APPLICATION.contact);
  await page.getByTestId("apply-submit").click();
  await expect(toastText(page, "Application submitted. The decision will show here.")).toBeVisible();

  await expect(rows(page)).toHaveCount(1);
  const row = rows(page).first();
  await expect(row.getByTestId("application-status")).toHaveText("Pending");
  await expect(row).toContainText("Pinyin");
  await expect(row).toContainText(APPLICATION.project);
  await expect(row).toContainText("20,000");
  await expect(row).toContainText("not yet");
  // The one tool that needs approval now has an application under review, and the page says so.
  await expect(page.getByTestId("nothing-to-apply")).toHaveText("Your application for Pinyin is under review; the decision will show below.");
  // In Chinese, the tool by its Chinese name.
  await page.getByRole("combobox", { name: "Language" }).selectOption("zh-CN");
  await expect(page.getByTestId("nothing-to-apply")).toHaveText("您对 拼音 的申请正在审核中，结果将显示在下方。");
  await page.getByRole("combobox", { name: "语言" }).selectOption("en");

  const refused = await callPinyin(request, secret);
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("tool_not_approved");

  const id = await row.getAttribute("data-application-id");
  const listed = await runAdminCli("applications", "list", "--json");
  expect(listed.code, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout)).toContainEqual(
    expect.objectContaining({ id: Number(id), tool: "pinyin", project: APPLICATION.project, expectedMonthlyCalls: 20000, contact: APPLICATION.contact, status: "pending" }),
  );
  const approved = await runAdminCli("applications", "approve", id!);
  expect(approved.code, approved.stderr).toBe(0);
  expect(approved.stdout).toContain(`approved application ${id}`);

  await page.reload();
  await expect(row.getByTestId("application-status")).toHaveText("Approved");
  await expect(row).not.toContainText("not yet");
  await expect(page.getByTestId("nothing-to-apply")).toHaveText("You have access to every tool that needs approval.");

  const call = await callPinyin(request, secret);
  expect(call.status(), await call.text()).toBe(200);
  expect(await call.json()).toMatchObject({ pinyin: "nǐ hǎo", characters: 2 });
  expect(call.headers()["x-tollgate-cost"]).toBe("0.00004");
});

test("a rejection shows the reviewer's note, and the user may apply again", async ({ page, request }) => {
  test.slow();
  const { token } = await loginViaApi(request);
  const filed = await request.post("/api/v1/console/applications", {
    headers: { authorization: `Bearer ${token}` },
    data: { toolId: "pinyin", companyOrProject: "Side project", useCase: "Trying pinyin for a weekend hack.", expectedMonthlyCalls: 50, contact: "13912345678" },
  });
  expect(filed.status(), await filed.text()).toBe(201);
  const { id } = (await filed.json()) as { id: number };

  const rejected = await runAdminCli("applications", "reject", String(id), "--note", "Please name the app and its users.");
  expect(rejected.code, rejected.stderr).toBe(0);
  const twice = await runAdminCli("applications", "approve", String(id));
  expect(twice.code).toBe(1);
  expect(twice.stderr).toContain(`application ${id} was already rejected`);

  await signInPage(page, token);
  // A common laptop width: the reviewer's note must be readable without scrolling the table sideways.
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto("/console/apply");
  const row = rows(page).first();
  await expect(row.getByTestId("application-status")).toHaveText("Rejected");
  const note = row.getByTestId("application-note");
  await expect(note).toHaveText("Please name the app and its users.");
  const table = page.locator(".ant-table-content").first();
  expect(await table.evaluate((el) => el.scrollWidth - el.clientWidth), "the applications table scrolls sideways").toBeLessThanOrEqual(0);
  const [noteBox, tableBox] = [await note.boundingBox(), await table.boundingBox()];
  expect(noteBox!.x + noteBox!.width).toBeLessThanOrEqual(tableBox!.x + tableBox!.width);
  await expect(page.getByTestId("application-tool")).toContainText("Pinyin");
  await expect(page.getByTestId("apply-submit")).toBeEnabled();
});

test("a double click on Submit files one application, with one success and no refusal", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/apply");
  await fillApplication(page);

  // What the server answered each POST the page sent: a second one would be refused as already pending.
  const answers: number[] = [];
  page.on("response", (response) => {
    if (response.request().method() === "POST" && new URL(response.url()).pathname === "/api/v1/console/applications") answers.push(response.status());
  });
  await page.getByTestId("apply-submit").dblclick();

  await expect(toastText(page, "Application submitted. The decision will show here.")).toBeVisible();
  await expect(rows(page)).toHaveCount(1);
  await expect(page.getByTestId("nothing-to-apply")).toHaveText("Your application for Pinyin is under review; the decision will show below.");
  await expect(page.locator(".ant-message-notice")).toHaveCount(1);
  expect(answers).toEqual([201]);

  const listed = await request.get("/api/v1/console/applications", { headers: { authorization: `Bearer ${token}` } });
  expect(listed.status()).toBe(200);
  const { applications } = (await listed.json()) as { applications: { toolId: string; status: string }[] };
  expect(applications).toEqual([expect.objectContaining({ toolId: "pinyin", status: "pending" })]);
});

test("sent again after its answers were lost, the same filled form gets its application back, not a refusal", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  // The server gets each POST; the first answer and the client's own retry's are lost on the way back.
  const keys: string[] = [];
  await page.route("**/api/v1/console/applications", async (route) => {
    if (route.request().method() !== "POST") return route.fallback();
    keys.push(route.request().headers()["idempotency-key"] ?? "");
    const response = await route.fetch();
    if (keys.length <= 2) return route.abort("connectionreset");
    return route.fulfill({ response });
  });
  await page.goto("/console/apply");
  await fillApplication(page);
  await page.getByTestId("apply-submit").click();
  await expect(toastText(page, "request timed out, server did not respond!")).toBeVisible();
  expect(keys).toHaveLength(2);

  await page.getByTestId("apply-submit").click();
  await expect(toastText(page, "Application submitted. The decision will show here.")).toBeVisible();
  await expect(page.getByTestId("nothing-to-apply")).toHaveText("Your application for Pinyin is under review; the decision will show below.");
  expect(keys).toHaveLength(3);
  expect(new Set(keys).size).toBe(1);
  await expect(rows(page)).toHaveCount(1);
});

test("on a 390 px phone in Chinese, the list keeps a tool's name and its column heading whole, not one character a line", async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const { token } = await loginViaApi(request);
  const filed = await request.post("/api/v1/console/applications", {
    headers: { authorization: `Bearer ${token}` },
    data: { toolId: "pinyin", companyOrProject: "Side project", useCase: "Trying pinyin for a weekend hack.", expectedMonthlyCalls: 50, contact: "13912345678" },
  });
  expect(filed.status(), await filed.text()).toBe(201);
  await page.addInitScript(() => window.localStorage.setItem("lang", "zh-CN"));
  await signInPage(page, token);
  await page.goto("/console/apply");
  // A word broken over lines has one box per line: "拼" above "音".
  const lines = (cell: Element) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return range.getClientRects().length;
  };
  const name = rows(page).getByRole("cell", { name: "拼音", exact: true });
  await expect(name).toBeVisible();
  expect(await name.evaluate(lines)).toBe(1);
  expect(await page.getByRole("columnheader", { name: "工具", exact: true }).evaluate(lines)).toBe(1);
});
