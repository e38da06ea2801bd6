import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { launchChromium, openPage, startDashboardServer, type DashboardServer, type PageProblems } from './dashboard-harness.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, expectHeading, setUpFirstAdmin, signIn } from './dashboard-flows.js';

const NEW_PASSWORD = 'a fresh admin passphrase';
const MEMBER_EMAIL = 'writer@example.com';
const MEMBER_PASSWORD = 'the first member password';
const MEMBER_NEW_PASSWORD = 'the member chose this one';

/** The signed-in user GET /v1/session reports for this page's cookies. */
const sessionUser = (page: Page) => page.evaluate(async () => ((await (await fetch('/v1/session')).json()) as { user: Record<string, unknown> | null }).user);

describe.each(BACKENDS)('own account, password resets and roles in Chromium (%s)', (dialect) => {
  let server: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    server = await startDashboardServer({ dialect });
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, server.url));
    await setUpFirstAdmin(page, server);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('changes the password on the account page: the current one is checked, other sessions end, this one stays', async () => {
    const other = await openPage(browser, server.url);
    await signIn(other.page, server);

    await page.getByRole('link', { name: ADMIN_EMAIL }).click();
    await expectHeading(page, 'Your account');
    await expectAccessible(page, 'account');
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill('something else entirely');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('The new passwords differ.').isVisible()).toBe(true);

    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('invalid_current_password');

    await page.getByLabel('Current password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('Password changed. Your other sessions were signed out.').isVisible()).toBe(true);
    expect(await sessionUser(page)).toMatchObject({ email: ADMIN_EMAIL });
    expect(await sessionUser(other.page)).toBeNull();
    // The new password is the one that signs in now.
    await signIn(other.page, server, ADMIN_EMAIL, NEW_PASSWORD);
    expectNoProblems(other.problems);

    // Sign out everywhere: this browser and the other one.
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('dialog', { name: 'Sign out everywhere?' }).getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL('**/signin');
    expect(await sessionUser(page)).toBeNull();
    expect(await sessionUser(other.page)).toBeNull();
    await other.context.close();
    await signIn(page, server, ADMIN_EMAIL, NEW_PASSWORD);
    expectNoProblems(problems);
  });

  it('an admin resets a member’s password; the member must set a new one before anything else', async () => {
    await page.goto('/users');
    await expectHeading(page, 'Users');
    await page.getByLabel('Email').fill(MEMBER_EMAIL);
    await page.getByLabel('Initial password').fill(MEMBER_PASSWORD);
    await page.getByRole('button', { name: 'Add user' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Users' }).textContent()).toContain(MEMBER_EMAIL);
    const member = await openPage(browser, server.url);
    await signIn(member.page, server, MEMBER_EMAIL, MEMBER_PASSWORD);

    await page.getByRole('button', { name: `Reset password of ${MEMBER_EMAIL}` }).click();
    await page.getByRole('dialog', { name: "Reset this user's password?" }).getByRole('button', { name: 'Reset password' }).click();
    const shown = page.getByTestId('temporary-password');
    await shown.waitFor();
    const temporary = (await shown.textContent())!.trim();
    expect(temporary).toMatch(/^[A-Za-z0-9_-]{20}$/);
    await expect.poll(() => page.getByRole('region', { name: 'Users' }).textContent()).toContain('must set a new password');
    await expectAccessible(page, 'users with a temporary password');
    expect(await sessionUser(member.page)).toBeNull();

    await member.page.goto('/signin');
    await member.page.getByLabel('Email').fill(MEMBER_EMAIL);
    await member.page.getByLabel('Password').fill(temporary);
    await member.page.getByRole('button', { name: 'Sign in' }).click();
    await member.page.waitForURL('**/account');
    await expectHeading(member.page, 'Set a new password');
    await expectAccessible(member.page, 'forced password change');
    // Every other page leads back here, and the API refuses until then.
    await member.page.goto('/projects');
    await member.page.waitForURL('**/account');
    await expectHeading(member.page, 'Set a new password');
    const refused = await member.page.evaluate(async () => {
      const response = await fetch('/v1/projects');
      return { status: response.status, code: ((await response.json()) as { code: string }).code };
    });
    expect(refused).toEqual({ status: 403, code: 'password_change_required' });

    await member.page.getByLabel('Temporary password').fill(temporary);
    await member.page.getByLabel('New password', { exact: true }).fill(MEMBER_NEW_PASSWORD);
    await member.page.getByLabel('Repeat the new password').fill(MEMBER_NEW_PASSWORD);
    await member.page.getByRole('button', { name: 'Set password and continue' }).click();
    await member.page.waitForURL(`${server.url}/`);
    await expectHeading(member.page, 'Projects');
    expect(await sessionUser(member.page)).toMatchObject({ email: MEMBER_EMAIL, mustChangePassword: false });
    expectNoProblems(member.problems);
    await member.context.close();

    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.reload();
    await expect.poll(() => page.getByRole('region', { name: 'Users' }).textContent()).toContain(MEMBER_EMAIL);
    expect(await page.getByRole('region', { name: 'Users' }).textContent()).not.toContain('must set a new password');
    expectNoProblems(problems);
  });

  it('roles change in the users table; the only admin cannot be made a member', async () => {
    await page.goto('/users');
    const myRole = page.getByLabel(`Role of ${ADMIN_EMAIL}`);
    await myRole.selectOption('member');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('last_admin');
    expect(await myRole.inputValue()).toBe('admin');

    await page.getByLabel(`Role of ${MEMBER_EMAIL}`).selectOption('admin');
    await expect
      .poll(async () => (await page.evaluate(async () => (await (await fetch('/v1/users')).json()) as { users: Array<{ email: string; role: string }> })).users)
      .toContainEqual(expect.objectContaining({ email: 'writer@example.com', role: 'admin' }));
    const member = await openPage(browser, server.url);
    await signIn(member.page, server, MEMBER_EMAIL, MEMBER_NEW_PASSWORD);
    await member.page.getByRole('link', { name: 'Users' }).waitFor();
    expectNoProblems(member.problems);
    await member.context.close();
    expectNoProblems(problems);
  });
});
