import { test, expect, openHydrated, startScenario, timeline } from './helpers';

// A2UI surfaces through the demo AG-UI agent over a real socket: drawn from their
// operations, filled in from the keyboard (inputs write the surface's data locally), an
// action sent back once and checked by the server, the agent's update landing on the
// surface without losing the operator's edits, and all of it after a reload.

test('an A2UI form is filled from the keyboard, its action reaches the agent once and the update lands', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const actions: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/fn/send_surface_action')) actions.push(request.postData() ?? '');
  });
  await startScenario(page, 'surface');
  const log = timeline(page);
  await expect(log.getByText('Here is the booking form.')).toBeVisible();
  await log.getByRole('button', { name: /^Open .* in the canvas$/ }).click();
  const surface = page.getByRole('region', { name: 'Surface booking' });
  await expect(surface.getByRole('heading', { name: 'Book a room for Ada' })).toBeVisible();

  // Tabs: the arrow keys move between them and show their panels.
  const details = surface.getByRole('tab', { name: 'Details' });
  await details.focus();
  await page.keyboard.press('ArrowRight');
  await expect(surface.getByRole('tab', { name: 'Rooms' })).toBeFocused();
  await expect(surface.getByText('Green room: 12 seats')).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(details).toHaveAttribute('aria-selected', 'true');

  // Inputs write the surface's data locally: the heading follows the name as it is typed,
  // and the button's check holds it back while the name is empty.
  const name = surface.getByRole('textbox', { name: 'Booked by' });
  const book = surface.getByRole('button', { name: 'Book' });
  await name.fill('');
  await expect(book).toBeDisabled();
  await name.pressSequentially('Grace');
  await expect(surface.getByRole('heading', { name: 'Book a room for Grace' })).toBeVisible();
  await expect(book).toBeEnabled();
  await surface.getByRole('radio', { name: 'Green room' }).focus();
  await page.keyboard.press('Space');
  await expect(surface.getByRole('radio', { name: 'Green room' })).toBeChecked();
  await expect(surface.getByRole('radio', { name: 'Blue room' })).not.toBeChecked();
  await surface.getByRole('slider', { name: 'People' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(surface.getByRole('slider', { name: 'People' })).toHaveValue('6');
  await surface.getByRole('checkbox', { name: 'Projector' }).focus();
  await page.keyboard.press('Space');
  await expect(surface.getByRole('checkbox', { name: 'Projector' })).toBeChecked();
  expect(actions).toHaveLength(0);

  // The action goes back once; the agent answers and updates the surface's status.
  await book.focus();
  await page.keyboard.press('Enter');
  await expect(log.getByText('Action "book" from book: Booked the green room for Grace (6 people) at 2026-12-07T10:00.')).toBeVisible();
  await expect(log.getByText(/sent “book” from surface booking/)).toBeVisible();
  // The surface asked for its data model: the operator's edits went with the action.
  await expect(log.getByText(/The form's data model says Grace\./)).toBeVisible();
  await expect(surface.getByText('Booked the green room for Grace (6 people) at 2026-12-07T10:00.')).toBeVisible();
  // The operator's edits the agent did not change are still there.
  await expect(surface.getByRole('heading', { name: 'Book a room for Grace' })).toBeVisible();
  expect(actions).toHaveLength(1);

  // After a reload the surface is rebuilt from the stored events: the agent's update is
  // on it, and nothing is sent again.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await log.getByRole('button', { name: /^Open .* in the canvas$/ }).first().click();
  const again = page.getByRole('region', { name: 'Surface booking' });
  await expect(again.getByText('Booked the green room for Grace (6 people) at 2026-12-07T10:00.')).toBeVisible();
  await page.waitForTimeout(300);
  expect(actions).toHaveLength(1);
  expect(errors).toEqual([]);
});

test('the gallery draws a surface of every basic component and names what a broken one did wrong', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openHydrated(page, '/gallery');
    const entry = page.locator('section.gallery-entry[data-component="a2ui_surface"]');
    const valid = entry.locator('[data-example="valid"]').getByRole('region', { name: 'Surface gallery' });
    await expect(valid.getByRole('heading', { name: 'Weekly report' })).toBeVisible();
    await expect(valid.getByText('Prepared for Ada')).toBeVisible();
    // The theme's colour tints the surface; its name is said to be the agent's own claim.
    await expect(valid).toHaveAttribute('data-primary', '');
    await expect(valid.getByText(/From Report Bot, as the agent names itself/)).toBeVisible();
    await expect(valid.getByRole('listitem')).toHaveCount(3);
    await expect(valid.getByRole('img', { name: 'A small square' })).toBeVisible();
    await expect(valid.getByRole('button', { name: 'Load videos from example.org' })).toBeVisible();
    const broken = entry.locator('[data-example="invalid"]');
    await expect(broken.getByText('Waiting for the agent to send this surface\'s root component…')).toBeVisible();
    await broken.getByText('2 of the agent\'s operations could not be applied').click();
    await expect(broken.getByText(/createSurface must come first/)).toBeVisible();
    await expect(broken.getByText(/components\[0\]\.id/)).toBeVisible();
    await testInfo.attach(`a2ui_surface-${scheme}.png`, { body: await entry.screenshot(), contentType: 'image/png' });
  }
  // The modal opens from its trigger and closes with Escape; an action lands in the log.
  const valid = page.locator('section.gallery-entry[data-component="a2ui_surface"] [data-example="valid"]');
  await valid.getByRole('button', { name: 'More' }).click();
  await expect(page.getByRole('dialog', { name: 'Surface dialog' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Surface dialog' })).toHaveCount(0);
  // formatDate writes the bound date with the agent's pattern; a regex check follows the
  // field as it is typed; openUrl is a link that names its host, and only to the web.
  await expect(valid.getByText('Sending on Monday, 7 December 2026')).toBeVisible();
  const phone = valid.getByRole('textbox', { name: 'Phone' });
  await phone.fill('12345');
  await expect(valid.getByText('Ten digits, please.')).toBeVisible();
  await phone.fill('0123456789');
  await expect(valid.getByText('Ten digits, please.')).toHaveCount(0);
  const guide = valid.getByRole('link', { name: /Report guide/ });
  await expect(guide).toHaveAttribute('href', 'https://example.org/docs/weekly-report');
  await expect(guide).toHaveAttribute('target', '_blank');
  await expect(guide).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(guide).toContainText('example.org');
  const odd = valid.locator('[data-action="open-url"]', { hasText: 'Odd link' });
  await expect(odd).toContainText('(not opened)');
  await expect(odd).not.toHaveAttribute('href', /.*/);
  await expect(odd).toHaveAttribute('aria-disabled', 'true');
  await valid.getByRole('textbox', { name: 'Your name' }).fill('Lin');
  await valid.getByRole('checkbox', { name: 'Incidents' }).check();
  await valid.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('list', { name: 'Actions' })).toContainText('send_report: {"to":"Lin","topics":["releases","incidents"]}');
  expect(errors).toEqual([]);
});
