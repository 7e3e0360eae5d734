import type { Page } from "@playwright/test";

/**
 * How far the page reaches past the screen's width (> 0: it scrolls sideways). Not past
 * `innerWidth`: on a phone (isMobile) a page wider than the screen widens the layout viewport to fit
 * it, `innerWidth` with it, and the difference stays 0; `clientWidth` stays the device's width.
 */
export const sidewaysOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
