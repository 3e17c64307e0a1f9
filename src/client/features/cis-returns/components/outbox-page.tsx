import { Download, FileText, Inbox } from 'lucide-react';
import { Link } from 'wouter';
import { paths } from '@/client/config/paths';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { PageSpinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { useConnection } from '@/client/lib/connection';
import { outboxLinks, useOutbox } from '@/client/lib/hmrc';

function OutboxMain({ orgId, tenantName }: { orgId: number; tenantName: string | null }) {
  const outbox = useOutbox(orgId);
  const messages = outbox.data?.messages ?? [];
  return (
    <div>
      <PageHeader
        title="Outbox"
        description={`Demo mode keeps every email Ledgerlink sends${tenantName ? ` for ${tenantName}` : ''} here instead of sending it: statements to subcontractors and deadline reminders, as they would arrive.`}
        actions={
          <Button asChild variant="ghost" size="sm">
            <Link href={paths.cisReturns.getHref()}>CIS Returns</Link>
          </Button>
        }
      />
      {outbox.isLoading ? (
        <PageSpinner label="Reading the outbox" />
      ) : outbox.isError ? (
        <Alert variant="destructive">
          <div>
            <AlertTitle>Could not read the outbox</AlertTitle>
            <AlertDescription>{getMessage(outbox.error, 'Please try again')}</AlertDescription>
          </div>
        </Alert>
      ) : messages.length === 0 ? (
        <Alert>
          <Inbox aria-hidden />
          <div>
            <AlertTitle>No email yet</AlertTitle>
            <AlertDescription>Statements emailed from CIS Returns show here.</AlertDescription>
          </div>
        </Alert>
      ) : (
        // One column as wide as the page (minmax(0, 1fr)): an implicit column took the width an attachment's
        // name asked for, 10 px past the page's margin at 375 px.
        <ul className="grid grid-cols-1 gap-4" aria-label="Emails sent">
          {messages.map((m) => (
            <li key={m.id}>
              <Card>
                <CardHeader>
                  <CardTitle className="break-words">{m.subject}</CardTitle>
                  <CardDescription className="break-words">
                    To {m.to} · from {m.from} · {new Date(m.sentAt).toLocaleString('en-GB')}
                  </CardDescription>
                </CardHeader>
                <CardContent className="grid gap-3">
                  <pre className="whitespace-pre-wrap break-words font-sans text-sm">{m.body}</pre>
                  <div className="flex flex-wrap gap-2">
                    {m.attachments.map((a, position) => (
                      <Button
                        key={a.filename}
                        asChild
                        size="sm"
                        variant="outline"
                        className="h-auto min-h-8 max-w-full whitespace-normal break-all text-left"
                      >
                        <a
                          href={outboxLinks.attachment(orgId, m.id, position)}
                          target="_blank"
                          rel="noreferrer"
                        >
                          <FileText aria-hidden /> {a.filename}
                        </a>
                      </Button>
                    ))}
                    <Button asChild size="sm" variant="ghost">
                      <a href={outboxLinks.raw(orgId, m.id)} download>
                        <Download aria-hidden /> Message (.eml)
                      </a>
                    </Button>
                  </div>
                </CardContent>
              </Card>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Demo mode's outbox (issue 43): the emails of the active organisation, each openable with its attachments. */
export function OutboxPage() {
  const { data: connection, isLoading } = useConnection();
  if (isLoading || !connection || connection.organizationId === null)
    return <PageSpinner label="Checking the Xero connection" />;
  return (
    <OutboxMain
      key={connection.organizationId}
      orgId={connection.organizationId}
      tenantName={connection.tenantName ?? null}
    />
  );
}
