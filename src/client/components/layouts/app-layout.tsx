import type { ReactNode } from 'react';
import { ConnectionTroubleBanner, ResetApplicationBanner } from '@/client/components/banners';
import { Footer } from './footer';
import { Header } from './header';
import { useUser } from '@/client/lib/auth';
import { useFeatureFlagWatch } from '@/client/lib/feature-flag-watch';

/** Every signed-in browser follows an administrator's feature switches within the 4 s poll. */
function FeatureFlagWatch() {
  const user = useUser();
  useFeatureFlagWatch(Boolean(user.data));
  return null;
}

export function AppLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:z-50 focus:rounded-md focus:bg-card focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <FeatureFlagWatch />
      <Header />
      <ResetApplicationBanner />
      <ConnectionTroubleBanner />
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6 sm:py-8">
        {children}
      </main>
      <Footer />
    </div>
  );
}
