import { render } from 'preact';
import { App } from './app';
import { applyTheme, storedTheme } from './lib/theme';
import './styles/base.css';
import './styles/layout.css';
import './styles/controls.css';
import './styles/components.css';
import './styles/pages.css';

// Before the first render, so a stored dark choice never flashes light.
applyTheme(storedTheme());
const root = document.getElementById('app');
if (root) render(<App />, root);
