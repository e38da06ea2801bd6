import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { signOut, useSession } from '../api/session-store';
import { ThemeToggle } from './theme-toggle';
import { ToastRegion, notify } from './toast';

/** Header, navigation, skip link and the main landmark every page renders into. */
export function AppShell({ children }: { children: ComponentChildren }) {
  const session = useSession();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const user = session.status === 'ready' ? session.user : null;
  // A navigation closes the small-screen menu.
  useEffect(() => setMenuOpen(false), [location.url]);

  const current = (prefix: string) => (prefix === '/' ? location.path === '/' || location.path.startsWith('/projects') : location.path.startsWith(prefix));
  const doSignOut = async () => {
    try {
      await signOut();
      // Also from a pull request page, which a signed-out visitor may otherwise stay on.
      location.route('/signin', true);
    } catch (error) {
      notify(`Sign-out failed: ${error instanceof Error ? error.message : String(error)}`, 'error');
    }
  };

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <a href={user ? '/' : '/signin'} class="brand">
            <span class="brand-mark" aria-hidden="true">
              D
            </span>
            Docwright
          </a>
          {user && (
            <button type="button" class="btn btn-ghost menu-button" aria-expanded={menuOpen} aria-controls="primary-nav" onClick={() => setMenuOpen(!menuOpen)}>
              <span aria-hidden="true">☰</span> Menu
            </button>
          )}
          {user && (
            <nav id="primary-nav" class={`primary-nav${menuOpen ? ' open' : ''}`} aria-label="Main">
              <a href="/" aria-current={current('/') ? 'page' : undefined}>
                Projects
              </a>
              {user.role === 'admin' && (
                <a href="/users" aria-current={current('/users') ? 'page' : undefined}>
                  Users
                </a>
              )}
              <div class="nav-user">
                <a
                  href="/account"
                  class="nav-email"
                  title={`Signed in as ${user.email} (${user.role}): your account`}
                  aria-current={current('/account') ? 'page' : undefined}
                >
                  {user.email}
                </a>
                <button type="button" class="btn btn-small" onClick={doSignOut}>
                  Sign out
                </button>
              </div>
            </nav>
          )}
          <ThemeToggle />
        </div>
      </header>
      <main id="main" tabIndex={-1} class="main">
        {children}
      </main>
      <ToastRegion />
    </>
  );
}
