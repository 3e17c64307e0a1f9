import { useEffect } from 'react';

/**
 * Unsaved changes (issue 17 item 11): while a form holds changes, leaving it (a link, an organisation
 * switch, closing or reloading the tab) asks first instead of dropping them without a word.
 */
export const UNSAVED_CHANGES_QUESTION = 'You have unsaved changes. Leave without saving them?';

const holders = new Set<symbol>();

export function hasUnsavedChanges(): boolean {
  return holders.size > 0;
}

/** True when nothing is unsaved or the user agrees to leave it. */
export function confirmDiscardUnsaved(): boolean {
  if (!hasUnsavedChanges()) return true;
  return window.confirm(UNSAVED_CHANGES_QUESTION);
}

function isInAppLink(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  const anchor = target.closest('a[href]');
  if (!anchor || anchor.getAttribute('target') === '_blank') return false;
  const href = anchor.getAttribute('href') ?? '';
  return href !== '' && !href.startsWith('#');
}

/** Registers a form's unsaved state while `dirty`; links and page unloads then ask first. */
export function useUnsavedChangesWarning(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    const token = Symbol('unsaved');
    holders.add(token);
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    const onClick = (event: MouseEvent) => {
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
