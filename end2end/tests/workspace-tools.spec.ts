import { askLane, expect, openHydrated, startScenario, test, timeline } from './helpers';

// The console's workspace tools called by the demo agent (a real AG-UI agent over HTTP):
// its memory add goes through the review queue, and a note it writes waits for an
// operator to allow it, then is attributed to the agent, its run and the operator.
// The server's side is server/tests/workspace_tools.rs.

const unique = () => Math.random().toString(36).slice(2, 8);

test("an agent's memory add goes through review", async ({ page }) => {
  const fact = `deploys happen on Fridays ${unique()}`;
  await startScenario(page, `remember ${fact}`);
  // The tool runs at once (memory's default policy); what it proposed is queued.
  await expect(timeline(page)).toContainText('an operator reviews it before it is remembered');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await expect(askLane(page).getByRole('form')).toHaveCount(0);

  await openHydrated(page, '/memory');
  await expect(page.getByRole('list', { name: 'Memory entries' })).not.toContainText(fact);
  const proposal = page.getByRole('list', { name: 'Proposals waiting for review' }).locator(':scope > li').filter({ hasText: fact });
  await expect(proposal).toContainText('agent demo');
  await proposal.getByRole('button', { name: 'Accept' }).click();
  const entry = page.getByRole('list', { name: 'Memory entries' }).locator(':scope > li').filter({ hasText: fact });
  await expect(entry).toContainText('agent demo');
  await expect(entry).toContainText('approved by ada');
});

test('a note an agent writes waits for an operator, who allows it', async ({ page }) => {
  const title = `Release checklist ${unique()}`;
  await startScenario(page, `jot ${title}`);
  const card = askLane(page).getByRole('form');
  await expect(card).toContainText(`Write a new note “${title}”`);
  await expect(card).toContainText(`Written by the demo agent: ${title}.`);
  await card.getByRole('button', { name: 'Allow' }).click();
  await expect(timeline(page)).toContainText('The console ran it: {"version":1,"written":');
  await expect(askLane(page).getByRole('form')).toHaveCount(0);

  await openHydrated(page, `/notes?q=${encodeURIComponent(title)}`);
  // The sidebar's thread is titled by the message that asked for the note.
  await page.getByRole('main').getByRole('link', { name: title, exact: true }).click();
  await expect(page.getByRole('main')).toContainText('agent demo (run');
  await expect(page.getByRole('main')).toContainText('approved by ada');
});
