import { ShieldAlert } from 'lucide-react';
import { useUser, useIsAdmin } from '@/client/lib/auth';
import { Card, CardContent } from '@/client/components/ui/card';
import { PageSpinner } from '@/client/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/client/components/ui/tabs';
import { ActivityTab } from './activity-tab';
import { OrganizationsTab } from './organizations-tab';
import { ReviewTab } from './review-tab';
import { UsersTab } from './users-tab';

export const NO_ADMIN_ACCESS_TEXT = 'You do not have administrator access.';

/**
 * The Admin tab (docs/product/shell.md §2 Admin panel, §6): Organizations, Users, Activity and Needs review
 * (beyond the spec), for admins only. `initialTab` opens Needs review (the Today page's link, issue 47).
 */
export function AdminPanel({ initialTab }: { initialTab?: 'review' } = {}) {
  const { data: user } = useUser();
  const admin = useIsAdmin(Boolean(user));
  if (admin.isLoading) return <PageSpinner label="Checking administrator access" />;
  if (!admin.data) {
    return (
      <Card>
        <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
          <span className="flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
            <ShieldAlert aria-hidden className="size-6" />
          </span>
          <p className="font-medium">{NO_ADMIN_ACCESS_TEXT}</p>
        </CardContent>
      </Card>
    );
  }
  return (
    <Tabs defaultValue={initialTab ?? 'organizations'}>
      {/* Four tabs are wider than a 375 px phone: they wrap instead of scrolling the page sideways (issue 17). */}
      <TabsList className="h-auto flex-wrap">
        <TabsTrigger value="organizations">Organizations</TabsTrigger>
        <TabsTrigger value="users">Users</TabsTrigger>
        <TabsTrigger value="activity">Activity</TabsTrigger>
        <TabsTrigger value="review">Needs review</TabsTrigger>
      </TabsList>
      <TabsContent value="organizations">
        <OrganizationsTab />
      </TabsContent>
      <TabsContent value="users">
        <UsersTab currentUserId={user?.id} />
      </TabsContent>
      <TabsContent value="activity">
        <ActivityTab />
      </TabsContent>
      <TabsContent value="review">
        <ReviewTab />
      </TabsContent>
    </Tabs>
  );
}
