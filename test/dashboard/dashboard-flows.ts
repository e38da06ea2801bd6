import type { Page } from 'playwright-core';
import { printedSetupToken, type DashboardServer } from './dashboard-harness.js';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'correct horse battery staple';

/** Waits for the page's h1 to read `text` (usable in hooks too, unlike expect.poll). */
export async function expectHeading(page: Page, text: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text, exact: true }).waitFor({ timeout: 10_000 });
}

/** First run through the setup page, with the token from the server's log. */
export async function setUpFirstAdmin(page: Page, server: DashboardServer): Promise<void> {
  await page.goto('/setup');
  await page.getByLabel('Setup token').fill(printedSetupToken(server.logs));
  await page.getByLabel('Your email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByLabel('Repeat the password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Create admin and sign in' }).click();
  await page.waitForURL(`${server.url}/`);
  await expectHeading(page, 'Projects');
}

export async function signIn(page: Page, server: DashboardServer, email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/`);
}

/** Creates a project in the "New project" dialog (a GitHub or GitLab one with `forge`); answers its id (the dialog opens its keys page). */
export async function createProjectInUi(page: Page, name: string, repository: string, forge?: { kind: 'github' | 'gitlab'; token: string }): Promise<string> {
  await page.goto('/');
  await page.getByRole('button', { name: 'New project' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New project' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Repository').fill(repository);
  if (forge !== undefined) {
    await dialog.getByLabel('Forge', { exact: true }).selectOption(forge.kind);
    await dialog.getByLabel('Forge token').fill(forge.token);
  }
  await dialog.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(/\/projects\/[^/]+\/keys$/);
  await expectHeading(page, name);
  return decodeURIComponent(/\/projects\/([^/]+)\/keys$/.exec(page.url())![1]!);
}
