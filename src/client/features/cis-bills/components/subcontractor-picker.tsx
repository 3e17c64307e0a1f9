import { Check, ChevronDown, Search, TriangleAlert } from 'lucide-react';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { findCisSubcontractors, isCisChecked, type CisContact } from '@/shared/cis-bills';
import { cn } from '@/client/lib/utils';
import { Picker, PickerContent, PickerTrigger } from '@/client/components/ui/picker';
import { Spinner } from '@/client/components/ui/spinner';
import { CIS_CHECKING_TEXT, CIS_NOT_CHECKED_TEXT, getCisContactLabel } from '../utils/messages';

/** Rows checked when the browser cannot say which are in view (no IntersectionObserver): the first screenful. */
export const CIS_FALLBACK_ROWS = 20;

/** Asks for subcontractors' CIS settings (see `useCisContactChecks`). */
export type CheckCisContacts = (ids: readonly string[], options?: { immediate?: boolean }) => unknown;

/**
 * The subcontractor dropdown (docs/product/features.md §2): a search box 'Search contractors...' filtering by
 * case-insensitive name, contacts sorted by name, contractors or suppliers only, '(No UTR)' on contacts whose
 * hasValidUTR is false, and 'No CIS subcontractors found' when nothing matches.
 *
 * Issue 19: a subcontractor's CIS settings are read from Xero when its row comes into view (or it is picked),
 * not for the whole list up front. Until they are known the row says 'Checking…' instead of a '(No UTR)' that
 * could be wrong either way.
 */
export function SubcontractorPicker({
  contacts,
  value,
  onChange,
  isLoading,
  id,
  invalid,
  onCheck,
  failedIds,
}: {
  contacts: readonly CisContact[];
  value: string;
  onChange: (contactId: string) => void;
  isLoading: boolean;
  id?: string;
  invalid?: boolean;
  onCheck?: CheckCisContacts;
  failedIds?: ReadonlySet<string>;
}) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const listRef = useRef<HTMLUListElement | null>(null);
  // The list mounts in a portal a render after `open`: the observer starts once it is there.
  const [listElement, setListElement] = useState<HTMLUListElement | null>(null);
  const attachList = useCallback((element: HTMLUListElement | null) => {
    listRef.current = element;
    setListElement(element);
  }, []);
  const options = useMemo(() => findCisSubcontractors(contacts, search), [contacts, search]);
  const selected = contacts.find((c) => c.id === value);
  const isFailed = (contact: CisContact) => failedIds?.has(contact.id) === true;
  // Rows in view, as the IntersectionObserver reports them; `inView` changes when they do.
  const visibleIds = useRef(new Set<string>());
  const [inView, setInView] = useState(0);
  // Just opened: rows whose check failed before are asked about again once.
  const retryFailed = useRef(false);

  useEffect(() => {
    const list = listElement;
    if (!open || !list || typeof IntersectionObserver === 'undefined') return;
    const seen = visibleIds.current;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const contactId = (entry.target as HTMLElement).dataset.contactId;
          if (!contactId) continue;
          if (entry.isIntersecting) seen.add(contactId);
          else seen.delete(contactId);
        }
        setInView((n) => n + 1);
      },
      // One screenful ahead below (and behind above): a row scrolled to is usually known already.
      { root: list, rootMargin: '100% 0px' },
    );
    list.querySelectorAll<HTMLElement>('[data-contact-id]').forEach((row) => observer.observe(row));
    return () => {
      observer.disconnect();
      seen.clear();
    };
  }, [open, options, listElement]);

  useEffect(() => {
    if (!open || !onCheck) return;
    const shown =
      typeof IntersectionObserver === 'undefined'
        ? options.slice(0, CIS_FALLBACK_ROWS)
        : options.filter((c) => visibleIds.current.has(c.id));
    const retry = retryFailed.current;
    if (shown.length > 0) retryFailed.current = false;
    const ids = shown.filter((c) => !isCisChecked(c) && (retry || !failedIds?.has(c.id))).map((c) => c.id);
    if (ids.length > 0) onCheck(ids);
  }, [open, options, inView, onCheck, failedIds]);

  function choose(contact: CisContact) {
    onChange(contact.id);
    setOpen(false);
    setSearch('');
    // A subcontractor picked is checked at once: the bill must not go out on an unknown CIS state.
    if (!isCisChecked(contact)) onCheck?.([contact.id], { immediate: true });
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = Math.max(0, Math.min(options.length - 1, active + (event.key === 'ArrowDown' ? 1 : -1)));
      setActive(next);
      listRef.current?.querySelector(`[data-index="${next}"]`)?.scrollIntoView({ block: 'nearest' });
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const option = options[active];
      if (option) choose(option);
    }
  }

  return (
    <Picker
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) retryFailed.current = true;
        if (next)
          setActive(
            Math.max(
              0,
              options.findIndex((o) => o.id === value),
            ),
          );
        else setSearch('');
      }}
    >
      <PickerTrigger
        id={id}
        expanded={open}
        listId={listId}
        aria-haspopup="listbox"
        aria-invalid={invalid || undefined}
        aria-label={
          selected
            ? `Subcontractor: ${getCisContactLabel(selected, { failed: isFailed(selected) })}`
            : 'Subcontractor'
        }
        className={cn(!selected && 'text-muted-foreground')}
      >
        <span className="flex min-w-0 items-center gap-1.5">
          {selected && isCisChecked(selected) && !selected.hasValidUTR ? (
            <TriangleAlert aria-hidden className="size-3.5 shrink-0 text-warning-foreground" />
          ) : null}
          <span className="truncate">
            {selected
              ? isCisChecked(selected)
                ? getCisContactLabel(selected)
                : selected.name
              : 'Select subcontractor'}
          </span>
          {selected && !isCisChecked(selected) ? (
            <span className="shrink-0 text-xs text-muted-foreground">
              {isFailed(selected) ? CIS_NOT_CHECKED_TEXT : CIS_CHECKING_TEXT}
            </span>
          ) : null}
        </span>
        {isLoading ? (
          <Spinner className="size-4" label="Loading subcontractors" />
        ) : (
          <ChevronDown aria-hidden className="size-4 shrink-0 opacity-60" />
        )}
      </PickerTrigger>
      <PickerContent label="Choose a subcontractor" className="p-1 animate-fade-in">
        <div className="flex items-center gap-2 border-b border-border px-2 pb-1">
          <Search aria-hidden className="size-4 shrink-0 text-muted-foreground" />
          <input
            autoFocus
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
            placeholder="Search contractors..."
            aria-label="Search contractors"
            aria-controls={listId}
            aria-activedescendant={options[active] ? `${listId}-${active}` : undefined}
            className="h-9 w-full bg-transparent text-sm outline-none placeholder:text-muted-foreground"
          />
        </div>
        <ul
          ref={attachList}
          id={listId}
          role="listbox"
          aria-label="Subcontractors"
          className="max-h-64 overflow-y-auto py-1"
        >
          {options.length === 0 ? (
            <li className="px-3 py-6 text-center text-sm text-muted-foreground">
              {isLoading ? 'Loading subcontractors...' : 'No CIS subcontractors found'}
            </li>
          ) : (
            options.map((contact, index) => (
              <li
                key={contact.id}
                id={`${listId}-${index}`}
                data-index={index}
                data-contact-id={contact.id}
                role="option"
                aria-label={getCisContactLabel(contact, { failed: isFailed(contact) })}
                aria-busy={!isCisChecked(contact) && !isFailed(contact) ? true : undefined}
                aria-selected={contact.id === value}
                onMouseEnter={() => setActive(index)}
                onClick={() => choose(contact)}
                className={cn(
                  'relative flex cursor-default select-none items-center gap-2 rounded-md py-2 pl-8 pr-2 text-sm',
                  index === active && 'bg-muted',
                )}
              >
                {contact.id === value ? (
                  <Check aria-hidden className="absolute left-2 size-4 text-primary" />
                ) : null}
                <span className="truncate">{contact.name}</span>
                {!isCisChecked(contact) ? (
                  <span className="shrink-0 text-xs text-muted-foreground">
                    {isFailed(contact) ? CIS_NOT_CHECKED_TEXT : CIS_CHECKING_TEXT}
                  </span>
                ) : contact.hasValidUTR ? null : (
                  <span className="shrink-0 text-xs font-medium text-warning-foreground">(No UTR)</span>
                )}
              </li>
            ))
          )}
        </ul>
      </PickerContent>
    </Picker>
  );
}
