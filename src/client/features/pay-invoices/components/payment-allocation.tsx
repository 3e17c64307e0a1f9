import { Banknote, CreditCard } from 'lucide-react';
import { useId, type FormEvent, type Ref } from 'react';
import { formatMoney, isAmountInput } from '@/shared/money';
import {
  getAllocation,
  type BankAccount,
  type BankAccountsResponse,
  type Invoice,
} from '@/shared/pay-invoices';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import {
  Select,
  SelectContent,
  SelectGroup,
  SelectItem,
  SelectTrigger,
  SelectValue,
} from '@/client/components/ui/select';
import { Select as SelectPrimitive } from 'radix-ui';
import { cn } from '@/client/lib/utils';

function AccountOptions({ label, accounts }: { label: string; accounts: BankAccount[] }) {
  if (accounts.length === 0) return null;
  return (
    <SelectGroup>
      <SelectPrimitive.Label className="px-2 pb-1 pt-2 text-xs font-medium text-muted-foreground">
        {label}
      </SelectPrimitive.Label>
      {accounts.map((account) => (
        <SelectItem key={account.accountId} value={account.accountId}>
          {account.name}
          {account.bankAccountNumber ? ` · ${account.bankAccountNumber}` : ''}
        </SelectItem>
      ))}
    </SelectGroup>
  );
}

function PaymentBlock({
  kind,
  title,
  accountId,
  onAccountChange,
  accounts,
  amount,
  onAmountChange,
  inputRef,
  currencySymbol,
  disabled,
  shortcut,
}: {
  kind: 'card' | 'cash';
  title: string;
  accountId: string | null;
  onAccountChange: (accountId: string) => void;
  accounts: BankAccountsResponse;
  amount: string;
  onAmountChange: (value: string) => void;
  inputRef: Ref<HTMLInputElement>;
  currencySymbol: string;
  disabled: boolean;
  shortcut: string;
}) {
  const id = useId();
  const Icon = kind === 'card' ? CreditCard : Banknote;
  // The card block lists cards first, the cash block bank and cash accounts first; both offer every bank account.
  const groups =
    kind === 'card'
      ? [
          { label: 'Credit cards', accounts: accounts.creditCardAccounts },
          { label: 'Bank and cash', accounts: accounts.cashAccounts },
        ]
      : [
          { label: 'Bank and cash', accounts: accounts.cashAccounts },
          { label: 'Credit cards', accounts: accounts.creditCardAccounts },
        ];
  const empty = accounts.creditCardAccounts.length + accounts.cashAccounts.length === 0;
  return (
    <fieldset
      className="grid min-w-0 grid-cols-1 gap-3 rounded-xl border border-border bg-muted/40 p-4"
      disabled={disabled}
    >
      <legend className="sr-only">{title}</legend>
      <div className="flex items-center gap-2 text-sm font-semibold" aria-hidden>
        <Icon className="size-4 text-primary" />
        {title}
      </div>
      <div className="grid gap-1.5">
        <Label htmlFor={`${id}-account`} className="text-xs text-muted-foreground">
          {kind === 'card' ? 'Credit card account' : 'Cash account'}
        </Label>
        <Select value={accountId ?? ''} onValueChange={onAccountChange} disabled={disabled || empty}>
          <SelectTrigger
            id={`${id}-account`}
            className="min-w-0 [&>span]:min-w-0"
            aria-label={kind === 'card' ? 'Credit card account' : 'Cash account'}
          >
            <SelectValue placeholder={empty ? 'No bank accounts found' : 'Select an account'} />
          </SelectTrigger>
          <SelectContent>
            {groups.map((group) => (
              <AccountOptions key={group.label} label={group.label} accounts={group.accounts} />
            ))}
          </SelectContent>
        </Select>
      </div>
      <div className="grid gap-1.5">
        <Label
          htmlFor={`${id}-amount`}
          className="flex items-center justify-between text-xs text-muted-foreground"
        >
          <span>{kind === 'card' ? 'Card amount' : 'Cash amount'}</span>
          <kbd className="hidden rounded border border-border bg-card px-1 font-sans text-[10px] md:inline">
            {shortcut}
          </kbd>
        </Label>
        <div className="relative">
          <span
            aria-hidden
            className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-sm text-muted-foreground"
          >
            {currencySymbol}
          </span>
          <Input
            ref={inputRef}
            id={`${id}-amount`}
            aria-label={kind === 'card' ? 'Card amount' : 'Cash amount'}
            inputMode="decimal"
            autoComplete="off"
            // An amount takes no '/': there the key still goes to the search (issue 33 item 7).
            data-shortcut-field="amount"
            placeholder="0.00"
            value={amount}
            onChange={(event) => {
              // Digits with at most two decimals, empty allowed (docs/product/features.md §5); anything else
              // is not taken.
              const next = event.target.value.trim();
              if (isAmountInput(next)) onAmountChange(next);
            }}
            className="pl-7 text-base tabular sm:text-sm"
          />
        </div>
      </div>
    </fieldset>
  );
}

/**
 * Payment Allocation (docs/product/features.md §2): a Credit Card Payment block and a Cash Payment block
 * (account and amount), then Remaining Balance and Total Allocated. Enter in an amount processes the
 * payments.
 */
export function PaymentAllocation({
  invoice,
  accounts,
  cardAccountId,
  cashAccountId,
  onCardAccountChange,
  onCashAccountChange,
  cardAmount,
  cashAmount,
  onCardAmountChange,
  onCashAmountChange,
  cardInputRef,
  cashInputRef,
  onSubmit,
  disabled,
}: {
  invoice: Invoice;
  accounts: BankAccountsResponse;
  cardAccountId: string | null;
  cashAccountId: string | null;
  onCardAccountChange: (id: string) => void;
  onCashAccountChange: (id: string) => void;
  cardAmount: string;
  cashAmount: string;
  onCardAmountChange: (value: string) => void;
  onCashAmountChange: (value: string) => void;
  cardInputRef: Ref<HTMLInputElement>;
  cashInputRef: Ref<HTMLInputElement>;
  onSubmit: () => void;
  disabled: boolean;
}) {
  const allocation = getAllocation(invoice.amountDue, cardAmount, cashAmount);
  const symbol = invoice.currency.toUpperCase() === 'GBP' ? '£' : '$';
  const over = allocation.remainingBalancePence < -1;
  return (
    <section aria-labelledby="allocation-heading" className="grid gap-3">
      <h3 id="allocation-heading" className="text-base font-semibold">
        Payment Allocation
      </h3>
      <form
        className="grid gap-3"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <div className="grid gap-3 lg:grid-cols-2">
          <PaymentBlock
            kind="card"
            title="Credit Card Payment"
            accountId={cardAccountId}
            onAccountChange={onCardAccountChange}
            accounts={accounts}
            amount={cardAmount}
            onAmountChange={onCardAmountChange}
            inputRef={cardInputRef}
            currencySymbol={symbol}
            disabled={disabled}
            shortcut="1"
          />
          <PaymentBlock
            kind="cash"
            title="Cash Payment"
            accountId={cashAccountId}
            onAccountChange={onCashAccountChange}
            accounts={accounts}
            amount={cashAmount}
            onAmountChange={onCashAmountChange}
            inputRef={cashInputRef}
            currencySymbol={symbol}
            disabled={disabled}
            shortcut="2"
          />
        </div>
        {/* Enter in either amount submits the form. */}
        <button type="submit" hidden tabIndex={-1} aria-hidden />
        <dl className="grid grid-cols-2 gap-3 rounded-xl border border-border p-4" aria-live="polite">
          <div>
            <dt className="text-xs font-medium uppercase tracking-wide text-muted-foreground">
              Remaining Balance
            </dt>
            <dd
              className={cn(
                'mt-0.5 text-lg font-semibold tabular',
                over ? 'text-destructive' : allocation.remainingBalancePence <= 1 ? 'text-success' : '',
              )}
            >
              {formatMoney(allocation.remainingBalancePence, invoice.currency)}
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium uppercase tracking-wide text-muted-foreground">
              Total Allocated
            </dt>
            <dd className="mt-0.5 text-lg font-semibold tabular">
              {formatMoney(allocation.totalAllocatedPence, invoice.currency)}
            </dd>
          </div>
        </dl>
      </form>
    </section>
  );
}
