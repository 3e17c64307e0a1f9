import { useId, type ReactElement, cloneElement } from 'react';
import { Label } from './label';

/**
 * A labelled form control with its validation message. The control receives id, aria-invalid and
 * aria-describedby so screen readers announce the error.
 */
export function FormField({
  label,
  error,
  hint,
  name,
  highlighted,
  children,
}: {
  label: string;
  error?: string | undefined;
  hint?: string;
  /** The field's name, as `data-field` on the wrapper, so a link can lead to it (issue 33). */
  name?: string;
  /** Ringed: the field a link led to. */
  highlighted?: boolean;
  children: ReactElement<{ id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }>;
}) {
  const id = useId();
  const messageId = `${id}-message`;
  const describedBy = error || hint ? messageId : undefined;
  return (
    <div
      className={
        highlighted
          ? 'grid gap-1.5 rounded-lg ring-2 ring-primary ring-offset-4 ring-offset-card'
          : 'grid gap-1.5'
      }
      data-field={name}
    >
      <Label htmlFor={id}>{label}</Label>
      {cloneElement(children, {
        id,
        'aria-invalid': error ? true : undefined,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      })}
      {error ? (
        <p id={messageId} className="text-[13px] text-destructive">
          {error}
        </p>
      ) : hint ? (
        <p id={messageId} className="text-[13px] text-muted-foreground">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
