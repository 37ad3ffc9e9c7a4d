import { askLane, expect, openHydrated, startScenario, test, timeline } from '../tests/helpers';

// The Trunk build renders everything in the browser: the first response is an empty page.
test('the client-side build renders in the browser and talks to the same server', async ({ page, request }) => {
  const shell = await request.get('/');
  expect(await shell.text()).not.toContain('Run timeline');

  await startScenario(page, 'approve');
  const lane = askLane(page);
  await lane.getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await lane.getByRole('dialog', { name: 'Confirm the date?' }).getByRole('button', { name: 'Approve once' }).click();
  const log = timeline(page);
  await expect(log.getByRole('status', { name: 'Approved once' })).toHaveCount(2);
  await expect(log.getByText('Both approved. Booked.')).toBeVisible();

  // The thread is the server's: it is listed by the server-rendered app as well.
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const listed = await request.get(`${process.env.BASE_URL}/api/v1/threads/${id}`);
  expect(listed.status()).toBe(200);
  expect((await listed.json()).runs.length).toBeGreaterThanOrEqual(2);

  // A reload renders the same run again from the server's events, client-side.
  await openHydrated(page, `/threads/${id}`);
  await expect(timeline(page).getByRole('status', { name: 'Approved once' })).toHaveCount(2);
});
