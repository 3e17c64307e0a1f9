import { TodayPage } from '@/client/features/today/components/today-page';
import { useDocumentTitle } from '@/client/lib/document-title';

/** Today (issue 47): every organisation at a glance, so the tab names no one organisation. */
export default function TodayRoute() {
  useDocumentTitle('Today');
  return <TodayPage />;
}
