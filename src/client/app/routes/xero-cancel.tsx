import { XeroCancelPage } from '@/client/features/auth/components/xero-cancel-page';
import { useDocumentTitle } from '@/client/lib/document-title';

export default function XeroCancelRoute() {
  useDocumentTitle('Returning from Xero');
  return <XeroCancelPage />;
}
