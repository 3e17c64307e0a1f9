/**
 * "Critical Error": a fatal error before React could render (docs/product/shell.md §2). Plain DOM, no
 * framework, no inline script or style attribute that the CSP would refuse.
 */
export function renderCriticalError(container: HTMLElement, error: unknown): void {
  container.replaceChildren();
  const box = document.createElement('div');
  box.setAttribute('role', 'alert');
  box.className = 'flex min-h-screen flex-col items-center justify-center gap-3 px-4 text-center';
  const title = document.createElement('h1');
  title.className = 'text-xl font-semibold';
  title.textContent = 'Critical Error';
  const text = document.createElement('p');
  text.className = 'max-w-md text-sm text-muted-foreground';
  text.textContent =
    'Ledgerlink could not start. Please refresh the page; if this keeps happening, clear this site’s data.';
  const detail = document.createElement('p');
  detail.className = 'max-w-md break-words font-mono text-xs text-muted-foreground';
  detail.textContent = error instanceof Error ? error.message : String(error);
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'mt-2 rounded-lg bg-primary px-4 py-2 text-sm font-medium text-primary-foreground';
  button.textContent = 'Refresh Page';
  button.addEventListener('click', () => window.location.reload());
  box.append(title, text, detail, button);
  container.append(box);
}
