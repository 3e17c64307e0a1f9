import { Settings2 } from 'lucide-react';
import { Link } from 'wouter';
import { CIS_SETTINGS_FIELDS, type CisBillSetup } from '@/shared/cis-bills';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { paths } from '@/client/config/paths';

/**
 * Issue 42: before anyone types a bill, CIS Bills says which CIS settings are missing and where to choose them
 * (Settings → CIS month-end): without a deductions account no bill with a deduction can be booked; without a
 * materials account a bill carries no materials.
 */
export function CisSetupNotice({ setup, orgId }: { setup: CisBillSetup | undefined; orgId: number }) {
  if (!setup) return null;
  const missing: { key: string; text: string; field: string; link: string }[] = [];
  if (!setup.deductionAccount)
    missing.push({
      key: 'deductions',
      text: 'Without a CIS deductions account (an ordinary liability account), bills with a CIS deduction cannot be created.',
      field: CIS_SETTINGS_FIELDS.deductionAccount,
      link: 'Choose the CIS deductions account in Settings',
    });
  if (setup.materialsAccounts.length === 0)
    missing.push({
      key: 'materials',
      text: 'Without a materials account, bills carry no materials: everything is labour.',
      field: CIS_SETTINGS_FIELDS.materialsAccounts,
      link: 'Choose a materials account in Settings',
    });
  if (missing.length === 0) return null;
  return (
    <Alert variant="warning" aria-label="CIS settings needed">
      <Settings2 aria-hidden />
      <div className="min-w-0">
        <AlertTitle>
          {missing.length === 1 ? 'One CIS setting is missing' : `${missing.length} CIS settings are missing`}
        </AlertTitle>
        <AlertDescription>
          <ul className="mt-1 grid gap-1">
            {missing.map((m) => (
              <li key={m.key}>
                {m.text}{' '}
                <Link
                  href={paths.settings.getHref(orgId, undefined, m.field)}
                  className="font-medium underline underline-offset-2"
                >
                  {m.link}
                </Link>
              </li>
            ))}
          </ul>
        </AlertDescription>
      </div>
    </Alert>
  );
}
