import { useEffect } from 'react';

/**
 * Unsaved changes (issue 17 item 11, issue 33 item 2): while a form holds changes, every way out asks first
 * instead of dropping them without a word: a link, the logo, the organisation switch, the page's Back, the
 * user-menu items, Logout (they call {@link confirmDiscardUnsaved}), the browser's Back and Forward, closing
 * or reloading the tab.
 */
export const UNSAVED_CHANGES_QUESTION = 'You have unsaved changes. Leave without saving them?';

/** Each form holding changes, with the address of its page. */
const holders = new Map<symbol, string>();

/**
 * The browser's Back (or Forward) has already changed the address when popstate fires, and the router
 * renders the other page from its own popstate listener, unmounting the form. So this listener is added when
 * the module loads, before the router's: kept changes put the form's address back first, and the router then
 * finds nothing changed.
 */
function onPopState(): void {
  const here = [...holders.values()].at(-1);
  if (here === undefined) return;
  if (window.confirm(UNSAVED_CHANGES_QUESTION)) holders.clear();
  else window.history.pushState(window.history.state, '', here);
}
if (typeof window !== 'undefined') window.addEventListener('popstate', onPopState);

export function hasUnsavedChanges(): boolean {
  return holders.size > 0;
}

/**
 * True when nothing is unsaved or the user agrees to leave it. Agreeing releases the changes, so the
 * navigation that follows (a history step, a link) does not ask a second time.
 */
export function confirmDiscardUnsaved(): boolean {
  if (!hasUnsavedChanges()) return true;
  if (!window.confirm(UNSAVED_CHANGES_QUESTION)) return false;
  holders.clear();
  return true;
}

/** Runs `action` unless unsaved changes are kept (for buttons and menu items that navigate). */
export function withUnsavedCheck(action: () => void): () => void {
  return () => {
    if (confirmDiscardUnsaved()) action();
  };
}

function isInAppLink(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  const anchor = target.closest('a[href]');
  if (!anchor || anchor.getAttribute('target') === '_blank') return false;
  const href = anchor.getAttribute('href') ?? '';
  return href !== '' && !href.startsWith('#');
}

/** Registers a form's unsaved state while `dirty`; links, history steps and page unloads then ask first. */
export function useUnsavedChangesWarning(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    const token = Symbol('unsaved');
    holders.set(token, `${window.location.pathname}${window.location.search}${window.location.hash}`);
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!holders.has(token)) return;
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    const onClick = (event: MouseEvent) => {
      if (!holders.has(token)) return;
      if (event.defaultPrevented || event.button !== 0 || !isInAppLink(event.target)) return;
      if (!window.confirm(UNSAVED_CHANGES_QUESTION)) {
        event.preventDefault();
        event.stopPropagation();
      } else {
        holders.delete(token);
      }
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      holders.delete(token);
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty]);
}
