import { Component, type ComponentChildren } from 'preact';

interface State {
  error: Error | null;
}

/**
 * A bug in a page shows a message instead of a blank screen. Lazy pages suspend by
 * throwing a promise; preact-iso's ErrorBoundary above catches those before Preact asks
 * this component, so only real errors land here.
 */
interface Props {
  /** The current path: navigating elsewhere clears the error. */
  resetKey: string;
  children: ComponentChildren;
}

export class CrashBoundary extends Component<Props, State> {
  override state: State = { error: null };

  override componentDidUpdate(previous: Props): void {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  override componentDidCatch(error: unknown): void {
    this.setState({ error: error instanceof Error ? error : new Error(String(error)) });
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div class="page narrow">
        <h1>This page failed</h1>
        <div class="alert alert-error" role="alert">
          <p class="alert-title">
            Unexpected error <code class="error-code">client_error</code>
          </p>
          <p>{error.message}</p>
        </div>
        <p>
          <button type="button" class="btn btn-primary" onClick={() => location.reload()}>
            Reload the page
          </button>{' '}
          <a href="/">Back to your projects</a>
        </p>
      </div>
    );
  }
}
