import { useEffect, useState } from 'react';
import { getShortcutFocus, type ShortcutFocus } from '../hooks/use-keyboard-shortcuts';

/** Where the focus is now, kept current as it moves (issue 33 item 7). */
function useShortcutFocus(): ShortcutFocus {
  const [focus, setFocus] = useState<ShortcutFocus>(() =>
    typeof document === 'undefined' ? 'free' : getShortcutFocus(document.activeElement),
  );
  useEffect(() => {
    const update = () => setFocus(getShortcutFocus(document.activeElement));
    // focusout fires before the next element has the focus: read it once the move is done.
    const later = () => queueMicrotask(update);
    document.addEventListener('focusin', update);
    document.addEventListener('focusout', later);
    return () => {
      document.removeEventListener('focusin', update);
      document.removeEventListener('focusout', later);
    };
  }, []);
  return focus;
}

/**
 * The keyboard shortcuts of docs/product/features.md §4, shown on wide screens, listing only the keys that work
 * where the focus is (issue 33 item 7): moving to an invoice puts the cursor in the card amount, where the
 * arrows and digits belong to the amount, so there the hint says so and how to get them back (Esc).
 */
export function KeyboardHint() {
  const focus = useShortcutFocus();
  const key = (label: string) => (
    <kbd className="rounded border border-border bg-card px-1 font-sans text-[11px] text-foreground">
      {label}
    </kbd>
  );
  return (
    <p
      className="hidden flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground md:flex"
      aria-label="Keyboard shortcuts"
      data-focus={focus}
    >
      {focus === 'free' ? (
        <>
          <span>
            {key('←')} {key('→')} or {key('PgUp')} {key('PgDn')} previous / next
          </span>
          <span>{key('1')} card amount</span>
          <span>{key('2')} cash amount</span>
          <span>
            {key('Ctrl')}+{key('Enter')} process
          </span>
          <span>{key('/')} search</span>
        </>
      ) : (
        <>
          <span>
            {key('PgUp')} {key('PgDn')} previous / next
          </span>
          <span>
            {focus === 'amount' ? <>{key('Enter')} or </> : null}
            {key('Ctrl')}+{key('Enter')} process
          </span>
          {focus === 'amount' ? (
            <>
              <span>{key('/')} search</span>
              <span>
                {key('Esc')} leave the amount for {key('←')} {key('→')} {key('1')} {key('2')}
              </span>
            </>
          ) : null}
        </>
      )}
    </p>
  );
}
