/**
 * What the benchmark does as a developer would: solve the captcha, read the SMS code from the
 * console provider's outbox, log in, redeem a code, create API keys. Plain fetch, no test runner.
 */
import fs from "node:fs";
import path from "node:path";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";

export class BenchClient {
  token: string | null = null;
  /** Cookies the server set, sent back as a browser would: a login code answers only to the client that asked for it (decision 017). */
  private readonly cookies = new Map<string, string>();
  constructor(
    readonly base: string,
    private readonly dataDir: string,
  ) {}

  async json<T>(method: string, urlPath: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.base}${urlPath}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(this.cookies.size > 0 ? { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ") } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [name, value] = cookie.split(";")[0]!.split("=", 2) as [string, string];
      this.cookies.set(name, value);
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${urlPath}: HTTP ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  private async captcha(): Promise<string> {
    const challenge = await this.json<Parameters<typeof solveChallenge>[0]["challenge"]>("GET", "/api/v1/auth/captcha/altcha/challenge");
    const solution = await solveChallenge({ challenge, deriveKey });
    if (!solution) throw new Error("could not solve the captcha challenge");
    return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
  }

  private async latestCode(phone: string): Promise<string> {
    const outbox = path.join(this.dataDir, "sms-outbox.jsonl");
    for (let attempt = 0; attempt < 50; attempt++) {
      const lines = fs.existsSync(outbox) ? fs.readFileSync(outbox, "utf8").trim().split("\n") : [];
      const mine = lines.map((l) => JSON.parse(l) as { to: string; text: string }).filter((m) => m.to === phone);
      const code = mine.at(-1)?.text.match(/\b(\d{6})\b/)?.[1];
      if (code) return code;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no SMS to ${phone} in ${outbox}`);
  }

  async login(phone: string): Promise<void> {
    const sent = await this.json<{ status: string; message: string }>("POST", "/api/v1/auth/phone/verification_code", {
      telephone: phone,
      captchaResult: await this.captcha(),
    });
    if (sent.status !== "success") throw new Error(`code not sent: ${sent.message}`);
    const { csrf_token } = await this.json<{ csrf_token: string }>("POST", "/api/v1/auth/phone/login", {
      telephone: phone,
      code: await this.latestCode(phone),
      recommendCode: "",
    });
    this.token = csrf_token;
  }

  async balance(): Promise<string> {
    return (await this.json<{ balance: string }>("GET", "/api/v1/tools/user-info")).balance;
  }

  async redeem(code: string): Promise<void> {
    await this.json("POST", "/api/v1/console/redeem", { code });
  }

  async createKey(name: string): Promise<string> {
    return (await this.json<{ secret: string }>("POST", "/api/v1/console/keys", { name })).secret;
  }
}
