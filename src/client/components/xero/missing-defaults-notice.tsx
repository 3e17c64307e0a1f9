import { Settings2 } from 'lucide-react';
import { Link } from 'wouter';
import { findMissingDefaults } from '@/shared/required-defaults-rules';
import type { DefaultIdField } from '@/shared/connection-rules';
import type { FeatureKey } from '@/shared/feature-flags-rules';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { paths } from '@/client/config/paths';

/**
 * Issue 33: a feature whose Settings defaults are missing says so on its screen before the user types
 * anything, one line per default with a link to its Settings field, instead of refusing after Process.
 */
export function MissingDefaultsNotice({
  feature,
  defaults,
  organizationId,
}: {
  feature: FeatureKey;
  defaults: Partial<Record<DefaultIdField, string | null | undefined>> | null | undefined;
  organizationId: number | string | null | undefined;
}) {
  const missing = findMissingDefaults(feature, defaults);
  if (!defaults || missing.length === 0 || organizationId === null || organizationId === undefined)
    return null;
  return (
    <Alert variant="warning" aria-label="Settings needed">
      <Settings2 aria-hidden />
      <div className="min-w-0">
        <AlertTitle>
          {missing.length === 1 ? 'One setting is missing' : `${missing.length} settings are missing`}
        </AlertTitle>
        <AlertDescription>
          <ul className="mt-1 grid gap-1">
            {missing.map((m) => (
              <li key={m.field}>
                Without a {m.label.toLowerCase()}, {m.without}.{' '}
                <Link
                  href={paths.settings.getHref(organizationId, undefined, m.field)}
                  className="font-medium underline underline-offset-2"
                >
                  Choose the {m.label} in Settings
                </Link>
              </li>
            ))}
          </ul>
        </AlertDescription>
      </div>
    </Alert>
  );
}
