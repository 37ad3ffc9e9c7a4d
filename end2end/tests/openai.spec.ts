import { askLane, expect, startScenario, test, timeline, withRunDetails } from './helpers';

// A thread bound to the demo OpenAI-compatible model over a real socket: the answer
// streams, the console runs the tool the model calls and sends the result back by itself,
// an MCP approval pauses the run, survives a reload and is answered once.

test('an OpenAI-compatible agent streams, calls a tool, pauses for approval across a reload and resumes once', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  // A panic's message reaches the console, not the page error: kept in the test's output.
  page.on('console', (message) => { if (message.type() === 'error') console.log('console error:', message.text().slice(0, 1500)); });
  await startScenario(page, 'colour the console please', 'demo-openai');
  const log = timeline(page);

  // The model called the console's own tool: it ran in the browser, its result went back
  // and the model's follow-up says what came back.
  await expect(page.locator('main.main')).toHaveAttribute('data-background', '#e6f4f1');
  await expect(log.getByText('The tools answered: change_background gave {"applied":"#e6f4f1"}.')).toBeVisible();
  const environment = (await withRunDetails(page)).getByRole('region', { name: 'Environment' });
  await expect(environment).toContainText('OpenAI Responses (model demo-model)');
  await expect(environment).toContainText('the endpoint answers the Responses API');
  await expect(environment.locator('code')).toHaveText(/^http:\/\/127\.0\.0\.1:\d+\/demo\/openai\/v1$/);

  // Text streams in as the model writes it.
  const composer = page.getByRole('textbox', { name: 'Message' });
  const request = `approve reading the team wiki (${Date.now()})`;
  await composer.fill(request);
  await composer.press('Enter');
  await expect(log.getByText('I need to read the team wiki for that.')).toBeVisible();
  const lane = askLane(page);
  const approval = lane.getByRole('dialog', { name: 'Read wiki “Release checklist” on wiki?' });
  await expect(approval).toBeVisible();
  await expect(approval).toContainText('Release checklist');

  // The ask is stored: after a reload it is still waiting, and nothing was sent.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  const again = askLane(page).getByRole('dialog', { name: 'Read wiki “Release checklist” on wiki?' });
  await expect(again).toBeVisible();
  await again.getByRole('button', { name: 'Approve once' }).click();
  await expect(log.getByText('Approved, so I read the release checklist: tag the release, then publish the notes.')).toBeVisible();
  await expect(askLane(page).getByRole('dialog')).toHaveCount(0);

  // Answered once: one approval went to the endpoint, and a reload sends nothing more.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await expect(log.getByText('Approved, so I read the release checklist: tag the release, then publish the notes.')).toHaveCount(1);
  type Item = { type?: string; role?: string; content?: string; approve?: boolean };
  const sent: { body: { input?: Item[] } }[] = await (
    await page.request.get('/demo/openai/v1/requests', { headers: { authorization: `Bearer ${process.env.AGENT_OS_DEMO_KEY}` } })
  ).json();
  const approvals = sent
    .map((each) => each.body.input ?? [])
    .filter((input) => input.some((item) => item.role === 'user' && item.content === request))
    .flat()
    .filter((item) => item.type === 'mcp_approval_response');
  expect(approvals).toEqual([{ type: 'mcp_approval_response', approval_request_id: expect.any(String), approve: true }]);
  expect(errors).toEqual([]);
});
