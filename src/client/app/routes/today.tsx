import { TodayPage } from '@/client/features/today/components/today-page';

export default function TodayRoute() {
  return <TodayPage />;
}
