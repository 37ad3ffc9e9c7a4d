import { expect, type Locator, type Page } from '@playwright/test';

/** Opens a path and waits until the browser bundle has hydrated the server-rendered page. */
export async function openHydrated(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
}

/** Starts a fresh thread in the sidebar and sends `words` from the composer with Enter. */
export async function startScenario(page: Page, words: string, agent?: string): Promise<void> {
  await openHydrated(page, '/');
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  if (agent) {
    await page.getByRole('combobox', { name: 'Agent' }).selectOption(agent);
  }
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(words);
  await composer.press('Enter');
}

/** The lane that holds every ask still waiting for an answer. */
export function askLane(page: Page) {
  return page.getByRole('region', { name: 'Pending asks' });
}

/** The run timeline. */
export function timeline(page: Page) {
  return page.getByRole('log', { name: 'Run timeline' });
}

/** Picks a choice from an approval card's "More choices" menu. */
export async function chooseMore(card: Locator, choice: string): Promise<void> {
  await card.getByText('More choices').click();
  await card.getByRole('button', { name: choice }).click();
}
