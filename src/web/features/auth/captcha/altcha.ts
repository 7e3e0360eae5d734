import type { CaptchaSettings } from "#shared/captcha";
import type { Captcha } from "./types";

/** The self-hosted proof-of-work captcha: invisible, solved in the browser when a code is requested. */
export async function loadAltcha(config: Extract<CaptchaSettings, { provider: "altcha" }>, host: HTMLElement): Promise<Captcha> {
  // The "external" build leaves its CSS to a stylesheet instead of writing a <style> the CSP
  // refuses, and its workers to us: the server's challenges are SHA-256 (altcha-lib's default).
  const [, , { default: ShaWorker }] = await Promise.all([import("altcha/external"), import("altcha/altcha.css"), import("altcha/workers/sha?worker")]);
  $altcha.algorithms.set("SHA-256", () => new ShaWorker());
  const widget = document.createElement("altcha-widget");
  widget.setAttribute("challenge", config.challengeUrl);
  widget.setAttribute("display", "invisible");
  widget.setAttribute("name", "captcha");
  host.appendChild(widget);
  return {
    async solve() {
      widget.reset();
      const result = await widget.verify();
      return result?.payload ?? null;
    },
    dispose: () => widget.remove(),
  };
}
