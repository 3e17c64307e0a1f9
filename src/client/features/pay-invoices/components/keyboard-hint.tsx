/** The keyboard shortcuts of docs/product/features.md §4, shown on wide screens. */
export function KeyboardHint() {
  const key = (label: string) => (
    <kbd className="rounded border border-border bg-card px-1 font-sans text-[11px] text-foreground">
      {label}
    </kbd>
  );
  return (
    <p
      className="hidden flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground md:flex"
      aria-label="Keyboard shortcuts"
    >
      <span>
        {key('←')} {key('→')} or {key('PgUp')} {key('PgDn')} previous / next
      </span>
      <span>{key('1')} card amount</span>
      <span>{key('2')} cash amount</span>
      <span>
        {key('Enter')} in an amount or {key('Ctrl')}+{key('Enter')} process
      </span>
      <span>{key('/')} search</span>
    </p>
  );
}
