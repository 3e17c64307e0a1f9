import { AlertTriangle, FileText, RefreshCw } from 'lucide-react';
import { Link } from 'wouter';
import { paths } from '@/client/config/paths';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { useConnection } from '@/client/lib/connection';
import { useCisReturnsPage } from '../hooks/use-cis-returns-page';
import { MonthsCard } from './months-card';
import { PenaltyBasis } from './penalty-basis';
import { HmrcFilingCard } from './hmrc-filing-card';
import { ReturnCard } from './return-card';
import { SubcontractorRefsDialog } from './subcontractor-refs-dialog';

function LoadError({ title, error }: { title: string; error: unknown }) {
  return (
    <Alert variant="destructive">
      <AlertTriangle aria-hidden />
      <div>
        <AlertTitle>{title}</AlertTitle>
        <AlertDescription>{getMessage(error, 'Please try again')}</AlertDescription>
      </div>
    </Alert>
  );
}

function CisReturnsMain({ orgId, tenantName }: { orgId: number; tenantName: string | null }) {
  const page = useCisReturnsPage(orgId);
  const { months, list, period, ret, settings } = page;
  const missingReference = settings.data ? !settings.data.employerReference : false;

  return (
    <div>
      <PageHeader
        title="CIS Returns"
        description={`The monthly return (CIS300) and subcontractors' payment and deduction statements${tenantName ? ` for ${tenantName}` : ''}, from the payments Xero has.`}
        actions={
          <>
            <Button
              variant="outline"
              size="sm"
              onClick={() => void page.refresh()}
              disabled={page.refreshing}
            >
              {page.refreshing ? <Spinner /> : <RefreshCw aria-hidden />} Refresh from Xero
            </Button>
            <Button asChild variant="outline" size="sm">
              <Link href={paths.cisInvoices.getHref()}>
                <FileText aria-hidden /> CIS Bills
              </Link>
            </Button>
          </>
        }
      />
      {missingReference ? (
        <Alert variant="warning" className="mb-6">
          <AlertTriangle aria-hidden />
          <div>
            <AlertTitle>Statements need your employer reference</AlertTitle>
            <AlertDescription>
              HMRC asks every statement to carry the contractor's employer reference. Add it, with your UTR
              and accounts office reference, in{' '}
              <Link href={paths.settings.getHref(orgId)} className="underline">
                Settings
              </Link>
              .
            </AlertDescription>
          </div>
        </Alert>
      ) : null}
      {months.isLoading ? (
        <PageSpinner label="Reading the month's payments" />
      ) : months.isError ? (
        <LoadError title="Could not load the tax months" error={months.error} />
      ) : (
        <div className="grid grid-cols-1 gap-6 lg:grid-cols-[18rem_minmax(0,1fr)]">
          <div className="order-2 lg:order-1">
            <MonthsCard
              months={list}
              selected={period ?? ''}
              onSelect={page.choose}
              footer={
                <PenaltyBasis
                  orgId={orgId}
                  firstReturnOn={months.data?.firstReturnOn ?? null}
                  settings={settings.data}
                />
              }
            />
          </div>
          <div className="order-1 min-w-0 lg:order-2">
            {ret.data ? (
              <ReturnCard orgId={orgId} ret={ret.data} isAdmin={page.isAdmin} onEditRefs={page.edit} />
            ) : ret.isError ? (
              <LoadError title="Could not load the return" error={ret.error} />
            ) : (
              <PageSpinner label="Reading the month's payments" />
            )}
            {ret.data ? <HmrcFilingCard orgId={orgId} ret={ret.data} /> : null}
          </div>
        </div>
      )}
      {page.editing ? (
        <SubcontractorRefsDialog
          orgId={orgId}
          line={page.editing}
          canChangeFiledUnder={page.isAdmin}
          onClose={() => page.edit(null)}
        />
      ) : null}
    </div>
  );
}

/**
 * CIS Returns (issues 29, 42): every tax month since the first CIS payment with its state and penalty; the chosen
 * month's return per subcontractor (rate, gross excluding VAT, materials, deduction), filed vs changed since, the
 * pre-filing checklist, nil-month marks, CSV and statement downloads. The router's feature guard has checked the
 * connection and the CIS Bills flag.
 */
export function CisReturnsPage() {
  const { data: connection, isLoading } = useConnection();
  if (isLoading || !connection || connection.organizationId === null)
    return <PageSpinner label="Checking the Xero connection" />;
  return (
    <CisReturnsMain
      key={connection.organizationId}
      orgId={connection.organizationId}
      tenantName={connection.tenantName ?? null}
    />
  );
}
