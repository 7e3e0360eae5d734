import { expect, type Locator } from "@playwright/test";

/**
 * Waits for an antd dialog's opening zoom to end before the test clicks in it. The dialog is first
 * laid out where it ends, at opacity 0, for a few frames, then zooms in from a fifth of its size
 * around the point last clicked. Playwright takes the transparent, still dialog for visible and
 * stable, and checks the hit target of the press only: a press there and a release once the zoom has
 * moved the button make a click on the wrapper instead, so Create runs nothing. The likely cause of a
 * CI failure under load (no "name is required", no request; not reproduced here). A person does not
 * click a button that is not shown yet.
 */
export async function opened(dialog: Locator): Promise<Locator> {
  await expect(dialog).toBeVisible();
  await expect(dialog).not.toHaveClass(/\bant-zoom-/);
  return dialog;
}
