import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Picks an option of an antd Select as a person does: opens it, waits for its list to stop moving,
 * clicks the option and sees the field show it. The list is laid out where it ends, then slides in
 * a few frames later (like a dialog's zoom, support/dialogs.ts): on a loaded machine a click aimed at
 * the still list landed beside the moved option, closed the list and left the old choice, and the
 * test went on with it (CI: a package bought as "Starter" after the test picked "Bulk"). The list is
 * found by the id its field names (`aria-controls`), as another Select's may still be closing.
 */
export async function chooseOption(page: Page, select: Locator, option: string): Promise<void> {
  const field = select.getByRole("combobox");
  await field.click();
  // Set while the list is open.
  await expect(field).toHaveAttribute("aria-controls", /_list$/);
  const listId = await field.getAttribute("aria-controls");
  const list = page.locator(".ant-select-dropdown").filter({ has: page.locator(`[id="${listId}"]`) });
  await expect(list).toBeVisible();
  await expect(list).not.toHaveClass(/\bant-slide-up-/);
  // antd's role="option" nodes are an invisible list for screen readers; the visible item is clicked.
  await list.locator(".ant-select-item-option").filter({ hasText: option }).click();
  await expect(select).toContainText(option);
}
