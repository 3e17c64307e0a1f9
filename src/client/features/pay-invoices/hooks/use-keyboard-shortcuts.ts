import { useEffect, useRef } from 'react';

export interface PayShortcuts {
  previous: () => void;
  next: () => void;
  focusCard: () => void;
  focusCash: () => void;
  focusSearch: () => void;
  process: () => void;
}

/** Where the focus is, for the shortcuts and their hint: typing in an amount, in another text box, or neither. */
export type ShortcutFocus = 'free' | 'amount' | 'text';

export function getShortcutFocus(target: EventTarget | null): ShortcutFocus {
  if (!isTyping(target)) return 'free';
  return target instanceof HTMLElement && target.dataset.shortcutField === 'amount' ? 'amount' : 'text';
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return (
    tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.getAttribute('role') === 'combobox'
  );
}

/**
 * Keyboard operation (beyond the spec): ← / → (Page Up / Page Down from anywhere) previous and next invoice, 1 card amount, 2 cash amount,
 * / search, Ctrl+Enter (⌘+Enter) process payments from anywhere. Single keys only act when the user is not
 * typing, and nothing acts while a dialog or menu is open or while payments are being processed. Moving to
 * an invoice puts the cursor in the card amount (docs/product/features.md §4), so there (issue 33 item 7) `/`
 * still goes to the search (an amount takes no '/'), and Esc leaves the box, giving ← → 1 2 back; the hint
 * says which keys work where the focus is.
 */
export function useKeyboardShortcuts(shortcuts: PayShortcuts, enabled: boolean) {
  const latest = useRef(shortcuts);
  useEffect(() => {
    latest.current = shortcuts;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey) return;
      if (document.querySelector('[role="dialog"][data-state="open"], [role="menu"], [role="listbox"]'))
        return;
      const actions = latest.current;
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        actions.process();
        return;
      }
      // Page Up / Page Down move between invoices from anywhere, amounts included: moving focuses the card
      // amount (docs/product/features.md §4), where the arrow keys belong to the text.
      if (
        (event.key === 'PageUp' || event.key === 'PageDown') &&
        !event.ctrlKey &&
        !event.metaKey &&
        !event.shiftKey
      ) {
        event.preventDefault();
        if (event.key === 'PageUp') actions.previous();
        else actions.next();
        return;
      }
      if (event.ctrlKey || event.metaKey) return;
      const focus = getShortcutFocus(event.target);
      if (focus === 'amount' && event.key === '/' && !event.shiftKey) {
        event.preventDefault();
        actions.focusSearch();
        return;
      }
      if (focus === 'amount' && event.key === 'Escape' && event.target instanceof HTMLElement) {
        event.target.blur();
        return;
      }
      if (focus !== 'free') return;
      // An element that uses the keys itself (the attachment viewer scrolls with the arrows) keeps them.
      if (event.target instanceof Element && event.target.closest('[data-keyboard-scope="local"]')) return;
      const map: Record<string, (() => void) | undefined> = {
        ArrowLeft: actions.previous,
        ArrowRight: actions.next,
        '1': actions.focusCard,
        '2': actions.focusCash,
        '/': actions.focusSearch,
      };
      const action = map[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [enabled]);
}
