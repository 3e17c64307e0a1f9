import { ArrowLeft } from 'lucide-react';
import { Link, useLocation } from 'wouter';
import { paths } from '@/client/config/paths';
import { useConnection } from '@/client/lib/connection';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { PageSpinner } from '@/client/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/client/components/ui/tabs';

/**
 * /settings (spec 000 §2): Back, and the General and Admin tabs. The cards of each tab live in
 * `src/client/features/settings` and `src/client/features/admin` and are composed here.
 */
export default function SettingsRoute() {
  const [, navigate] = useLocation();
  const { data: connection, isLoading } = useConnection();
  return (
    <div>
      <Button variant="ghost" size="sm" className="-ml-2 mb-3" onClick={() => (window.history.length > 1 ? window.history.back() : navigate(paths.organizations.getHref()))}>
        <ArrowLeft aria-hidden /> Back
      </Button>
      <PageHeader title="Settings" description={connection?.tenantName ? `Defaults for ${connection.tenantName}` : undefined} />
      <Tabs defaultValue="general">
        <TabsList>
          <TabsTrigger value="general">General</TabsTrigger>
          <TabsTrigger value="admin">Admin</TabsTrigger>
        </TabsList>
        <TabsContent value="general">
          {isLoading ? (
            <PageSpinner label="Loading settings" />
          ) : !connection?.connected ? (
            <Card>
              <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
                <p className="font-medium">No active Xero connection found</p>
                <Button asChild>
                  <Link href={paths.organizations.getHref()}>Select Organization</Link>
                </Button>
              </CardContent>
            </Card>
          ) : null}
        </TabsContent>
        <TabsContent value="admin" />
      </Tabs>
    </div>
  );
}
