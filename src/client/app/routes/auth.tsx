import { AuthPage } from '@/client/features/auth/components/auth-page';
import { useDocumentTitle } from '@/client/lib/document-title';

export default function AuthRoute() {
  useDocumentTitle('Sign in');
  return <AuthPage />;
}
