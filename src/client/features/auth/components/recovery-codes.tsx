import { Copy, Download, KeyRound } from 'lucide-react';
import { toast } from '@/client/lib/toast';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';

const FILE_NAME = 'ledgerlink-recovery-codes.txt';

function toText(codes: string[], username: string): string {
  return [
    `Ledgerlink recovery codes for ${username}`,
    'Each code signs you in once when your authenticator app is not at hand.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/** The recovery codes, shown once after turning two-step sign-in on, with copy and download. */
export function RecoveryCodes({
  codes,
  username,
  onDone,
  doneLabel,
}: {
  codes: string[];
  username: string;
  onDone: () => void;
  doneLabel: string;
}) {
  async function copy() {
    try {
      await navigator.clipboard.writeText(toText(codes, username));
      toast({ title: 'Recovery codes copied', variant: 'success' });
    } catch {
      toast({
        title: 'Copy failed',
        description: 'Select the codes and copy them, or download them instead.',
        variant: 'destructive',
      });
    }
  }

  function download() {
    const url = URL.createObjectURL(new Blob([toText(codes, username)], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = FILE_NAME;
    link.click();
    URL.revokeObjectURL(url);
  }

  return (
    <div className="grid gap-4">
      <Alert variant="warning">
        <KeyRound aria-hidden />
        <div>
          <AlertTitle>Save your recovery codes now</AlertTitle>
          <AlertDescription>
            They are shown only this once. Each code signs you in one time if you lose your phone. Keep them
            somewhere safe, such as a password manager.
          </AlertDescription>
        </div>
      </Alert>
      <ul
        aria-label="Recovery codes"
        className="grid grid-cols-2 gap-x-6 gap-y-2 rounded-lg border border-border bg-muted/50 p-4 font-mono text-sm tracking-wide"
      >
        {codes.map((code) => (
          <li key={code} className="text-center">
            {code}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="outline" onClick={() => void copy()}>
          <Copy aria-hidden /> Copy codes
        </Button>
        <Button type="button" variant="outline" onClick={download}>
          <Download aria-hidden /> Download
        </Button>
      </div>
      <Button type="button" onClick={onDone}>
        {doneLabel}
      </Button>
    </div>
  );
}
