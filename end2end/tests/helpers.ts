import { expect, type Page } from '@playwright/test';

/** Opens a path and waits until the browser bundle has hydrated the server-rendered page. */
export async function openHydrated(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
}
