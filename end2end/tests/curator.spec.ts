import { expect, freshTenant, openHydrated, signIn, test } from './helpers';

// The knowledge curator in the browser, in a tenant of its own: a dry run reports without
// proposing; a pass proposes the removal of a repeated entry, which waits in memory's
// review queue with its reason; accepted there, the change is in the curator's ledger,
// and Undo puts the entry back. Findings, the ledger and exact restores in both stores
// are server/tests/curator.rs.

test('a pass proposes a repeated entry for removal, the change is accepted in memory and undone from the Curator page', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  for (const content of ['Deploys happen on Fridays.', 'deploys happen on fridays']) {
    const added = await page.request.post('/api/v1/memory', { data: { scope: 'tenant', operations: [{ action: 'add', content }] } });
    expect(added.status(), await added.text()).toBe(200);
  }
  await openHydrated(page, '/curator');
  const section = page.getByRole('region', { name: 'Knowledge curator' });
  const passes = section.getByRole('list', { name: 'Curator passes' }).locator(':scope > li');

  // A dry run reports and proposes nothing; the list follows the job live.
  await section.getByRole('button', { name: 'Dry run' }).click();
  await expect(passes.first()).toContainText('completed · dry run · 1 found, 0 proposed');
  await passes.first().locator('summary').click();
  await expect(passes.first()).toContainText('Duplicate (tenant): “deploys happen on fridays”');
  await expect(passes.first()).toContainText('a dry run proposes nothing');

  await section.getByRole('button', { name: 'Pass now' }).click();
  await expect(passes).toHaveCount(2);
  await expect(passes.first()).toContainText('completed · 1 found, 1 proposed');
  await passes.first().locator('summary').click();
  await passes.first().getByRole('link', { name: 'Proposed for review' }).click();

  await expect(page).toHaveURL(/\/memory/);
  const proposal = page.getByRole('list', { name: 'Proposals waiting for review' }).locator(':scope > li');
  await expect(proposal).toContainText('the curator (pass');
  await expect(proposal).toContainText('Why: repeats an earlier entry word for word; kept: “Deploys happen on Fridays.”');
  await proposal.getByRole('button', { name: 'Accept' }).click();
  const entries = page.getByRole('list', { name: 'Memory entries' });
  await expect(entries.locator(':scope > li')).toHaveCount(1);

  await openHydrated(page, '/curator');
  const change = section.getByRole('list', { name: 'Curator ledger' }).locator(':scope > li');
  await expect(change).toContainText('Removed “deploys happen on fridays”');
  await expect(change).toContainText('approved by');
  await change.getByRole('button', { name: 'Undo' }).click();
  const ledger = section.getByRole('list', { name: 'Curator ledger' }).locator(':scope > li');
  await expect(ledger).toHaveCount(2);
  await expect(ledger.first()).toContainText('Put back “deploys happen on fridays”');
  await expect(ledger.nth(1)).toContainText('undone');
  await expect(section.getByRole('button', { name: 'Undo' })).toHaveCount(0);
  const memory = await (await page.request.get('/api/v1/memory?scope=tenant')).json();
  expect(memory.entries.map((entry: { text: string }) => entry.text)).toEqual(['Deploys happen on Fridays.', 'deploys happen on fridays']);
});
