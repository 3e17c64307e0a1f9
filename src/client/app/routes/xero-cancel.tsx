import { XeroCancelPage } from '@/client/features/auth/components/xero-cancel-page';

export default function XeroCancelRoute() {
  return <XeroCancelPage />;
}
