import { Link2, Lock } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { paths } from '@/client/config/paths';
import { cn } from '@/client/lib/utils';
import { Button } from './ui/button';
import { Card, CardContent } from './ui/card';

export interface StateCardProps {
  /** A lucide icon, drawn in the round badge (`aria-hidden`, size-6). */
  icon: ReactNode;
  title: string;
  /** The explanation under the title. */
  children?: ReactNode;
  /** Buttons or links under the explanation. */
  actions?: ReactNode;
  tone?: 'muted' | 'destructive';
  placement?: StatePlacement;
  /** Announced at once by screen readers: a failure or a refusal the user did not ask for. */
  alert?: boolean;
}

/**
 * Where a state card stands: `page` replaces the whole page (its title is the page's h1; the card is narrow
 * and centred), `workspace` fills the area below the page's own header (its title is an h2).
 */
export type StatePlacement = 'page' | 'workspace';

/**
 * The one card a page shows instead of its content: not connected, feature off, nothing to show, a failure
 * (docs/product/features.md §2 states). The texts are the feature's, from the spec; the look is this.
 */
export function StateCard({
  icon,
  title,
  children,
  actions,
  tone = 'muted',
  placement = 'workspace',
  alert = false,
}: StateCardProps) {
  const Heading = placement === 'page' ? 'h1' : 'h2';
  return (
    <Card
      role={alert ? 'alert' : undefined}
      className={placement === 'page' ? 'mx-auto mt-6 w-full max-w-xl' : undefined}
    >
      <CardContent className="flex flex-col items-center gap-3 px-6 py-12 text-center">
        <div
          className={cn(
            'flex size-12 items-center justify-center rounded-full',
            tone === 'destructive'
              ? 'bg-destructive-soft text-destructive'
              : 'bg-accent text-accent-foreground',
          )}
        >
          {icon}
        </div>
        <Heading className="text-lg font-semibold tracking-tight">{title}</Heading>
        {children ? <div className="max-w-md text-sm text-muted-foreground">{children}</div> : null}
        {actions ? (
          <div className="mt-1 flex w-full flex-col justify-center gap-2 sm:w-auto sm:flex-row sm:flex-wrap">
            {actions}
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}

export function BackToHomeButton({ variant = 'outline' }: { variant?: 'outline' | 'default' }) {
  return (
    <Button asChild variant={variant}>
      <Link href={paths.home.getHref()}>Back to Home</Link>
    </Button>
  );
}

/**
 * The organisation is not connected to Xero (docs/product/features.md §2): the feature's sentence and a
 * Connect to Xero button to where that feature sends the user, after Back to Home when it offers one.
 */
export function NotConnectedState({
  description,
  connectHref,
  withBackToHome = false,
  placement = 'page',
}: {
  description: string;
  connectHref: string;
  withBackToHome?: boolean;
  placement?: StatePlacement;
}) {
  return (
    <StateCard
      placement={placement}
      icon={<Link2 aria-hidden className="size-6" />}
      title="Not connected to Xero"
      actions={
        <>
          {withBackToHome ? <BackToHomeButton /> : null}
          <Button asChild>
            <Link href={connectHref}>Connect to Xero</Link>
          </Button>
        </>
      }
    >
      {description}
    </StateCard>
  );
}

/** The sentence docs/product/features.md §2 gives a feature switched off for the organisation. */
export const FEATURE_NOT_ENABLED_TEXT = 'This feature is not enabled for your organization.';

/**
 * The organisation's switch for the feature is off (docs/product/features.md §2, decision 007): the feature's
 * title, the spec's sentence and the way back the feature offers.
 */
export function FeatureDisabledState({
  title,
  description = FEATURE_NOT_ENABLED_TEXT,
  actions,
  placement = 'page',
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  placement?: StatePlacement;
}) {
  return (
    <StateCard
      alert
      placement={placement}
      icon={<Lock aria-hidden className="size-6" />}
      title={title}
      actions={actions}
    >
      {description}
    </StateCard>
  );
}
