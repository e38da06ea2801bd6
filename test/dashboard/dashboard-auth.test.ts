import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, printedSetupToken, startDashboardServer, type DashboardServer } from './dashboard-harness.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';

const EMAIL = 'admin@example.com';
const PASSWORD = 'correct horse battery staple';

describe('dashboard accounts in Chromium', () => {
  let server: DashboardServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startDashboardServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('first run: setup with the printed token, sign out, a wrong password, sign in', async () => {
    const { context, page, problems } = await openPage(browser, server.url);
    await page.goto('/');
    await page.waitForURL('**/setup');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Welcome to Docwright');
    await expectAccessible(page, 'setup');

    // A wrong token is refused with the server's code, and nothing is created.
    await page.getByLabel('Setup token').fill('0'.repeat(48));
    await page.getByLabel('Your email').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    const refusal = page.getByRole('alert');
    await expect.poll(() => refusal.textContent()).toContain('invalid_setup_token');

    await page.getByLabel('Setup token').fill(printedSetupToken(server.logs));
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    await page.waitForURL(server.url + '/');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Projects');
    expect(await page.getByRole('navigation', { name: 'Main' }).textContent()).toContain(EMAIL);
    await expectAccessible(page, 'projects (empty)');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to Docwright');
    await expectAccessible(page, 'sign-in');
    // Signed out for real: the API says so.
    const session = await page.evaluate(async () => (await fetch('/v1/session')).json());
    expect(session).toMatchObject({ setupRequired: false, user: null });

    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const wrong = page.getByRole('alert');
    await expect.poll(() => wrong.textContent()).toContain('Wrong email or password.');
    expect(await wrong.textContent()).toContain('invalid_credentials');
    expect(page.url()).toContain('/signin');
    await expectAccessible(page, 'sign-in with an error');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(server.url + '/');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Projects');

    // A reload keeps the session (the cookie, checked by GET /v1/session at load).
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Projects');
    expectNoProblems(problems);
    await context.close();
  });

  it('a signed-out visitor of a deep link signs in and lands on it', async () => {
    const { context, page, problems } = await openPage(browser, server.url);
    await page.goto('/users');
    await page.waitForURL('**/signin?next=%2Fusers');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/users');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Users');
    await expect.poll(() => page.getByRole('region', { name: 'Users' }).textContent()).toContain(EMAIL);
    await expectAccessible(page, 'users');
    expectNoProblems(problems);
    await context.close();
  });

  it('a session that ends under the page (a 401 from the API) sends the browser to sign in, then back', async () => {
    const { context, page, problems } = await openPage(browser, server.url);
    await page.goto('/signin');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(server.url + '/');
    // The projects have loaded with the session, before it goes.
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor();
    await context.clearCookies();
    // An in-app navigation (no reload): the users call answers 401.
    await page.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL('**/signin?next=%2Fusers');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/users');
    await expect.poll(() => page.getByRole('region', { name: 'Users' }).textContent()).toContain(EMAIL);
    expectNoProblems(problems);
    await context.close();
  });

  it('at 390 px the navigation folds into a menu that opens with the keyboard', async () => {
    const { context, page, problems } = await openPage(browser, server.url, { width: 390, height: 844 });
    await page.goto('/signin');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(server.url + '/');
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('link', { name: 'Users' }).isVisible()).toBe(false);
    await menu.focus();
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByRole('link', { name: 'Users' }).isVisible()).toBe(true);
    // Nothing overflows sideways at phone width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'projects at 390 px');
    expectNoProblems(problems);
    await context.close();
  });

  it('the dark theme follows the system, the toggle overrides it and is remembered, and both pass axe', async () => {
    const { context, page, problems } = await openPage(browser, server.url, { colorScheme: 'dark' });
    await page.goto('/signin');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background()).toBe('rgb(14, 16, 21)');
    await expectAccessible(page, 'sign-in, dark');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(server.url + '/');
    await expectAccessible(page, 'projects, dark');
    // system → light: stored, and still light after a reload with a dark system preference.
    await page.getByRole('button', { name: /^System theme/ }).click();
    expect(await background()).toBe('rgb(246, 247, 251)');
    await page.reload();
    await page.getByRole('button', { name: /^Light theme/ }).waitFor();
    expect(await background()).toBe('rgb(246, 247, 251)');
    expect(await page.evaluate(() => localStorage.getItem('docwright-theme'))).toBe('light');
    expectNoProblems(problems);
    await context.close();
  });

  it('the keyboard reaches everything: the skip link comes first and lands in the main content', async () => {
    const { context, page, problems } = await openPage(browser, server.url);
    await page.goto('/signin');
    await page.getByLabel('Email').waitFor();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((element) => element === document.activeElement)).toBe(true);
    // Visible when focused (it sits off-screen otherwise).
    expect((await skip.boundingBox())!.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('autocomplete'))).toBe('username');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(server.url + '/');
    // Focus is drawn: the ring of :focus-visible is not "none".
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');
    expectNoProblems(problems);
    await context.close();
  });
});
