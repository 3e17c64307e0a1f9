import { ConnectPanel } from '@/client/components/xero/connect-panel';

export default function ConnectRoute() {
  return <ConnectPanel />;
}
