import type { QueryClient } from '@tanstack/react-query';
import { useCrashRecovery } from '@/client/lib/crash-recovery';
import { RecoveryScreen } from '@/client/components/errors/error-screens';
import { AppProvider } from './provider';
import { AppRouter } from './router';

export function App({ queryClient }: { queryClient?: QueryClient }) {
  const { recoveryMode } = useCrashRecovery();
  if (recoveryMode) return <RecoveryScreen />;
  return (
    <AppProvider queryClient={queryClient}>
      <AppRouter />
    </AppProvider>
  );
}
