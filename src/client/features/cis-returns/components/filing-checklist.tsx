import { CheckCircle2, CircleAlert } from 'lucide-react';
import { Link } from 'wouter';
import type { CisReturn, CisReturnLine } from '@/shared/cis-returns';
import { paths } from '@/client/config/paths';
import { Button } from '@/client/components/ui/button';

/**
 * The pre-filing checklist (issue 42): what the return and the statements are filed under, each set or missing,
 * with where to set it. Filing is refused until all are set; the server names the same things.
 */
export function FilingChecklist({
  orgId,
  ret,
  onEditRefs,
}: {
  orgId: number;
  ret: CisReturn;
  onEditRefs: (line: CisReturnLine) => void;
}) {
  if (ret.filing) return null;
  const missing = ret.checks.filter((c) => !c.ok).length;
  return (
    <section
      aria-labelledby={`checks-${ret.period}`}
      className="grid gap-2 rounded-xl border border-border p-3"
    >
      <h3 id={`checks-${ret.period}`} className="text-sm font-semibold">
        Before filing{' '}
        <span className="font-normal text-muted-foreground">
          {missing === 0 ? '· everything HMRC asks for is set' : `· ${missing} missing`}
        </span>
      </h3>
      <ul className="grid gap-1 text-sm" aria-label="Before filing">
        {ret.checks.map((check) => {
          const line = check.contactId ? ret.lines.find((l) => l.contactId === check.contactId) : undefined;
          return (
            <li key={`${check.code}-${check.contactId ?? ''}`} className="flex flex-wrap items-center gap-2">
              {check.ok ? (
                <CheckCircle2 aria-hidden className="size-4 text-success" />
              ) : (
                <CircleAlert aria-hidden className="size-4 text-destructive" />
              )}
              <span>
                {check.label}
                <span className="sr-only">{check.ok ? ': set' : ': missing'}</span>
              </span>
              {check.ok ? null : line ? (
                <Button size="sm" variant="link" className="h-auto p-0" onClick={() => onEditRefs(line)}>
                  Add it
                </Button>
              ) : (
                <Link href={paths.settings.getHref(orgId)} className="text-sm underline">
                  Add it in Settings
                </Link>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
