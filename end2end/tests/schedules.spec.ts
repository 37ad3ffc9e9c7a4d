import { addUser, expect, openHydrated, signIn, test } from './helpers';

// The Schedules and Curator pages in the browser: a schedule made from the form shows its
// next times in its own zone, runs now as a real run (followed live in a second tab),
// is paused with a reason, resumed, edited and deleted; a bad expression is refused by
// field; failed jobs are retried by filter from the Curator page; a viewer reads both
// pages but is offered nothing to change. Firing on the clock, the policies and the
// stores are server/tests/schedules.rs and jobs.rs.

const unique = () => Math.random().toString(36).slice(2, 8);

test('a schedule is made, runs now as a real run followed live, is paused, resumed, edited and deleted', async ({ page, context }) => {
  const name = `Standup ${unique()}`;
  await openHydrated(page, '/schedules');
  await page.getByText('New schedule').click();
  const form = page.locator('form.schedule-form');
  await form.getByLabel('Name', { exact: true }).fill(name);
  await form.getByLabel('Agent').selectOption('demo');
  await form.getByLabel('Prompt (markdown)').fill('hello');
  await form.getByLabel('Kind').selectOption('cron');
  // A wrong expression is refused naming the field, and the form keeps what was typed.
  await form.getByLabel('Expression, interval or time').fill('0 9 * *');
  await form.getByLabel('Time zone (IANA)').fill('Europe/Berlin');
  await page.getByRole('button', { name: 'Make schedule' }).click();
  await expect(page.getByRole('alert')).toContainText('when');
  await expect(form.getByLabel('Name', { exact: true })).toHaveValue(name);
  await form.getByLabel('Expression, interval or time').fill('0 9 * * 1-5');
  await form.getByLabel('While the last fire still runs').selectOption('allow');
  await page.getByRole('button', { name: 'Make schedule' }).click();
  const list = page.getByRole('list', { name: 'Schedules' });
  const row = list.locator(':scope > li').filter({ hasText: name });
  await expect(row).toContainText('cron 0 9 * * 1-5');
  await expect(row).toContainText('Europe/Berlin');
  await expect(row).toContainText('0 missed · 0 skipped');

  // In full: ten times to come, at 09:00 in Berlin's own time.
  await row.getByRole('link', { name }).click();
  await expect(page).toHaveURL(/\/schedules\?id=sch-/);
  const detail = page.getByRole('region', { name });
  const next = detail.getByRole('list', { name: 'Next fires' }).locator('li');
  await expect(next).toHaveCount(10);
  for (const time of await next.allInnerTexts()) {
    expect(time).toMatch(/ 09:00 CES?T$/);
  }
  await expect(detail).toContainText('It has not fired yet.');

  // A second tab on the same schedule hears the fire without reloading.
  const other = await context.newPage();
  await openHydrated(other, page.url().replace(/^https?:\/\/[^/]+/, ''));
  const otherDetail = other.getByRole('region', { name });
  await expect(otherDetail).toContainText('It has not fired yet.');

  await detail.getByRole('button', { name: 'Run now' }).click();
  const fire = detail.locator('table.schedule-fires tbody tr').first();
  await expect(fire).toHaveAttribute('data-outcome', 'completed', { timeout: 20_000 });
  await expect(fire).toContainText('run now');
  const otherFire = otherDetail.locator('table.schedule-fires tbody tr').first();
  await expect(otherFire).toHaveAttribute('data-outcome', 'completed', { timeout: 20_000 });
  // The run is a real run in a real thread.
  await fire.getByRole('link', { name: 'Open the run' }).click();
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('log', { name: 'Run timeline' })).toContainText('hello', { timeout: 10_000 });
  // Its context pane names the schedule and the fire, and links back.
  const pane = page.getByRole('complementary', { name: 'Context' });
  await expect(pane.getByRole('link', { name: `${name} · due` })).toHaveAttribute('href', /\/schedules\?id=sch-/);
  await page.goBack();
  await openHydrated(page, page.url().replace(/^https?:\/\/[^/]+/, ''));

  // Paused with a reason: nothing comes next until it is resumed.
  await detail.getByPlaceholder('Why (optional)').fill('holiday week');
  await detail.getByRole('button', { name: 'Pause' }).click();
  await expect(detail.getByRole('status')).toContainText('holiday week');
  await expect(detail).toContainText('None: it is paused');
  await expect(row).toContainText('Paused');
  await detail.getByRole('button', { name: 'Resume' }).click();
  await expect(detail.getByRole('list', { name: 'Next fires' }).locator('li')).toHaveCount(10);

  // Edited: another name, an interval, and into a project.
  const projectName = `Ops ${unique()}`;
  const project = await page.request.post('/api/v1/projects', { data: { name: projectName } });
  expect(project.status()).toBe(201);
  await openHydrated(page, page.url().replace(/^https?:\/\/[^/]+/, ''));
  await detail.getByRole('button', { name: 'Edit' }).click();
  const edit = detail.locator('form.schedule-form');
  await edit.getByLabel('Name', { exact: true }).fill(`${name} (hourly)`);
  await edit.getByLabel('Kind').selectOption('every');
  await edit.getByLabel('Expression, interval or time').fill('2h');
  await edit.getByLabel('Project').selectOption({ label: projectName });
  await edit.getByRole('button', { name: 'Save' }).click();
  const renamed = page.getByRole('region', { name: `${name} (hourly)` });
  await expect(renamed).toContainText('every 2h');
  await expect(renamed.getByRole('link', { name: projectName })).toHaveAttribute('href', `/projects/${(await project.json()).id}`);

  // Deleted: gone from the list, and the open page says so.
  await renamed.getByRole('button', { name: 'Delete…' }).click();
  await page.getByRole('button', { name: 'Delete the schedule' }).click();
  await expect(page.getByText('There is no such schedule here')).toBeVisible();
  await expect(list.locator(':scope > li').filter({ hasText: name })).toHaveCount(0);

  // The audit trail has each change.
  const audit = await (await page.request.get('/api/v1/audit')).json();
  const actions = audit.entries.map((entry: { action: string }) => entry.action);
  for (const action of ['schedule.create', 'schedule.run', 'schedule.pause', 'schedule.resume', 'schedule.edit', 'schedule.delete']) {
    expect(actions).toContain(action);
  }
});

test('failed jobs are retried by filter from the Curator page, and one job shows its attempts and log', async ({ page }) => {
  // Fires into an archived project fail: no thread can be made there.
  const project = await (await page.request.post('/api/v1/projects', { data: { name: `Shelved ${unique()}` } })).json();
  expect((await page.request.patch(`/api/v1/projects/${project.id}`, { data: { archived: true } })).status()).toBe(200);
  const made = await page.request.post('/api/v1/schedules', {
    data: {
      name: `Doomed ${unique()}`,
      agent: 'demo',
      prompt: 'hello',
      project_id: project.id,
      when: { kind: 'cron', expression: '0 0 1 1 *' },
      timezone: 'UTC',
      overlap: 'allow',
    },
  });
  expect(made.status()).toBe(201);
  const schedule = await made.json();
  for (let i = 0; i < 2; i++) {
    expect((await page.request.post(`/api/v1/schedules/${schedule.id}/run`)).status()).toBe(202);
  }
  const failed = `/api/v1/jobs?state=failed&q=${schedule.id}`;
  await expect.poll(async () => (await (await page.request.get(failed)).json()).jobs.length, { timeout: 30_000 }).toBe(2);

  await openHydrated(page, `/curator?state=failed&q=${schedule.id}`);
  const tabs = page.getByRole('navigation', { name: 'Jobs by state' });
  await expect(tabs.getByRole('link', { name: /Failed/ })).toHaveAttribute('aria-current', 'page');
  await expect(tabs.getByRole('link', { name: /Failed/ })).toContainText('2');
  const jobs = page.getByRole('table', { name: 'Jobs' });
  await expect(jobs.locator('tbody tr')).toHaveCount(2);
  await expect(jobs).toContainText('no thread could be made');

  // One job in full: its attempt and its log.
  await jobs.locator('tbody tr').first().getByRole('link', { name: 'schedule.fire' }).click();
  const job = page.locator('section.job-detail');
  await expect(job).toHaveAttribute('data-state', 'failed');
  await expect(job.getByRole('table', { name: 'Attempts' }).locator('tbody tr')).toHaveCount(1);
  await expect(job.getByRole('link', { name: 'its schedule' })).toHaveAttribute('href', `/schedules?id=${schedule.id}`);

  // Everything matching, retried at once; they run (and fail) again.
  await page.getByRole('button', { name: 'Retry the 2 matching…' }).click();
  await page.getByRole('button', { name: 'Retry them' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'jobs to run again' })).toContainText('2 jobs to run again.');
  await expect.poll(async () => {
    const listed = (await (await page.request.get(failed)).json()).jobs;
    return listed.filter((one: { attempts: number }) => one.attempts === 2).length;
  }, { timeout: 30_000 }).toBe(2);
  // The open job follows without a reload.
  await expect(job.getByRole('table', { name: 'Attempts' }).locator('tbody tr')).toHaveCount(2, { timeout: 20_000 });

  const audit = await (await page.request.get('/api/v1/audit')).json();
  expect(audit.entries.map((entry: { action: string }) => entry.action)).toContain('job.retry');
});

test('a viewer reads schedules and jobs but is offered nothing to change', async ({ page, baseURL, browser }) => {
  const name = `Watched ${unique()}`;
  const made = await page.request.post('/api/v1/schedules', {
    data: { name, agent: 'demo', prompt: 'hello', when: { kind: 'every', interval: 'every 6h' }, timezone: 'Asia/Tokyo' },
  });
  expect(made.status()).toBe(201);
  const schedule = await made.json();
  addUser('vera', 'default', 'viewer');
  const viewerContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await viewerContext.newPage();
  await signIn(viewer, baseURL!, 'vera');
  await openHydrated(viewer, `/schedules?id=${schedule.id}`);
  await expect(viewer.getByRole('list', { name: 'Schedules' })).toContainText(name);
  await expect(viewer.getByRole('region', { name })).toContainText('Asia/Tokyo');
  await expect(viewer.getByText('New schedule')).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Run now' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Delete…' })).toHaveCount(0);
  const refused = await viewer.request.post(`/api/v1/schedules/${schedule.id}/run`);
  expect(refused.status()).toBe(403);
  await openHydrated(viewer, '/curator');
  await expect(viewer.getByRole('navigation', { name: 'Jobs by state' })).toBeVisible();
  await expect(viewer.getByRole('button', { name: /Retry the/ })).toHaveCount(0);
  await expect(viewer.getByRole('region', { name: 'Knowledge curator' })).toBeVisible();
  await expect(viewer.getByRole('button', { name: 'Pass now' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Save curator settings' })).toHaveCount(0);
  const pass = await viewer.request.post('/api/v1/curator/passes', { data: { dry_run: true } });
  expect(pass.status()).toBe(403);
  await viewerContext.close();
});

test("an agent's own schedule is listed beside the console's, and an owner adds, pauses, resumes and removes its jobs", async ({ page }) => {
  const name = `gateway-${unique()}`;
  await openHydrated(page, '/schedules');
  const section = page.getByRole('region', { name: "Agents' own schedules" });
  const gateway = section.locator('[data-agent="demo-hermes"]');
  await expect(gateway).toContainText('serves every tenant');
  await gateway.getByText('Add a job to demo-hermes').click();
  await gateway.getByLabel('Job name').fill(name);
  await gateway.getByLabel('Schedule (cron or every …)').fill('every 2h');
  await gateway.getByLabel('Job prompt').fill('Check the queue');
  await gateway.getByRole('button', { name: 'Add job' }).click();
  const jobs = gateway.getByRole('table', { name: 'Jobs of demo-hermes' });
  const row = jobs.locator('tbody tr').filter({ hasText: name });
  // Kept as the gateway keeps it.
  await expect(row).toContainText('every 120m');
  await expect(row).toHaveAttribute('data-state', 'scheduled');

  // Paused, it stays listed here though the gateway itself stops listing it.
  await row.getByRole('button', { name: `Pause ${name}` }).click();
  await expect(row).toHaveAttribute('data-state', 'paused');
  await openHydrated(page, '/schedules');
  await expect(row).toHaveAttribute('data-state', 'paused');
  await row.getByRole('button', { name: `Resume ${name}` }).click();
  await expect(row).toHaveAttribute('data-state', 'scheduled');
  await row.getByRole('button', { name: `Remove ${name}` }).click();
  await row.getByRole('alertdialog', { name: `Remove ${name}?` }).getByRole('button', { name: 'Remove the job' }).click();
  await expect(row).toHaveCount(0);

  const audit = await (await page.request.get('/api/v1/audit')).json();
  const actions = audit.entries.map((entry: { action: string }) => entry.action);
  for (const action of ['agent_job.add', 'agent_job.pause', 'agent_job.resume', 'agent_job.remove']) {
    expect(actions).toContain(action);
  }
});
