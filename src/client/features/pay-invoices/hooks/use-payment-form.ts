import { useEffect, useMemo, useRef } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import {
  chooseDefaultAccounts,
  getAllocation,
  getAutoFillAmount,
  type BankAccountsResponse,
  type Invoice,
} from '@/shared/pay-invoices';
import type { Connection } from '@/client/lib/connection';

/** The payment split of the invoice on screen: a card amount and account, a cash amount and account. */
export interface PaymentFormValues {
  cardAmount: string;
  cashAmount: string;
  cardAccountId: string | null;
  cashAccountId: string | null;
}

/**
 * The payment form (react-hook-form) of the invoice on screen (docs/product/features.md §4): the accounts
 * start at the organisation's defaults; typing one amount fills the other with the rest of the amount due;
 * both amounts clear, and the card amount takes the focus, when the invoice changes. Its check is the shared
 * `validatePaymentForm`, shown as the spec's toast when the user processes.
 */
export function usePaymentForm(
  invoice: Invoice | null,
  accounts: BankAccountsResponse,
  connection: Connection | undefined,
  /** The amount due a live event announced before the list shows it (useChangedElsewhere): typed against. */
  announcedAmountDue: number | null = null,
) {
  const amountDue = invoice ? (announcedAmountDue ?? invoice.amountDue) : 0;
  const defaults = useMemo(
    () =>
      chooseDefaultAccounts(accounts, {
        defaultCreditCardAccountId: connection?.defaultCreditCardAccountId,
        defaultCashAccountId: connection?.defaultCashAccountId,
      }),
    [accounts, connection?.defaultCreditCardAccountId, connection?.defaultCashAccountId],
  );
  const form = useForm<PaymentFormValues>({
    defaultValues: {
      cardAmount: '',
      cashAmount: '',
      cardAccountId: defaults.cardAccountId,
      cashAccountId: defaults.cashAccountId,
    },
  });
  const { setValue, control } = form;
  const [cardAmount, cashAmount, cardAccountId, cashAccountId] = useWatch({
    control,
    name: ['cardAmount', 'cashAmount', 'cardAccountId', 'cashAccountId'],
  });
  useEffect(() => setValue('cardAccountId', defaults.cardAccountId), [defaults.cardAccountId, setValue]);
  useEffect(() => setValue('cashAccountId', defaults.cashAccountId), [defaults.cashAccountId, setValue]);

  const cardInput = useRef<HTMLInputElement>(null);
  const cashInput = useRef<HTMLInputElement>(null);
  // A new invoice or a new amount due clears the amounts: typed against the old balance, they are gone. An amount due
  // announced by a live event counts from the event, so the list catching up to it later clears nothing.
  const invoiceKey = invoice ? `${invoice.invoiceId}:${amountDue}` : '';
  const isFirstInvoice = useRef(true);
  /** Which amounts the user typed for this invoice; only the other, untouched one is auto-filled. */
  const typed = useRef({ card: false, cash: false });
  useEffect(() => {
    setValue('cardAmount', '');
    setValue('cashAmount', '');
    typed.current = { card: false, cash: false };
    if (isFirstInvoice.current) {
      isFirstInvoice.current = false;
      return;
    }
    // Never pull focus out of a field the user is typing in (the search box narrows the list as they type).
    const active = document.activeElement;
    const isBusyElsewhere =
      active instanceof HTMLElement &&
      active !== cardInput.current &&
      active !== cashInput.current &&
      (active.tagName === 'INPUT' ||
        active.tagName === 'TEXTAREA' ||
        active.getAttribute('role') === 'combobox');
    if (invoiceKey && !isBusyElsewhere) cardInput.current?.focus();
  }, [invoiceKey, setValue]);

  // Once the user has typed in both boxes neither overwrites the other, so a part payment can be entered.
  const onCardAmountChange = (value: string) => {
    setValue('cardAmount', value);
    typed.current.card = true;
    if (invoice && !typed.current.cash) setValue('cashAmount', getAutoFillAmount(amountDue, value));
  };
  const onCashAmountChange = (value: string) => {
    setValue('cashAmount', value);
    typed.current.cash = true;
    if (invoice && !typed.current.card) setValue('cardAmount', getAutoFillAmount(amountDue, value));
  };

  return {
    values: { cardAmount, cashAmount, cardAccountId, cashAccountId } satisfies PaymentFormValues,
    allocation: invoice ? getAllocation(invoice.amountDue, cardAmount, cashAmount) : null,
    onCardAmountChange,
    onCashAmountChange,
    setCardAccountId: (id: string | null) => setValue('cardAccountId', id),
    setCashAccountId: (id: string | null) => setValue('cashAccountId', id),
    cardInput,
    cashInput,
  };
}
