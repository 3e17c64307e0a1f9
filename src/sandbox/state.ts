/**
 * The sandbox's whole state as plain JSON (persisted under dataDir). Money is integer pence,
 * quantities/unit amounts ×10 000, tax rates ×10 000 of a percent. Field names follow Xero where the
 * value goes on the wire unchanged.
 */
import type { JWK } from 'jose';
import type { AccountClass } from './account-types';
import type { LineAmountTypes } from './money';

export const STATE_VERSION = 1;

export interface UserRec {
  userId: string;
  email: string;
  givenName: string;
  familyName: string;
  /** Organisations this user can pick on the consent page. */
  tenantIds: string[];
  createdMs: number;
}

export interface ConnectionRec {
  id: string;
  userId: string;
  clientId: string;
  tenantId: string;
  authEventId: string;
  createdMs: number;
  updatedMs: number;
}

export interface RefreshTokenRec {
  token: string;
  familyId: string;
  userId: string;
  clientId: string;
  scopes: string[];
  authEventId: string;
  sid: string;
  authTimeMs: number;
  issuedMs: number;
  /** When this token was redeemed (rotated); it stays valid for the grace period after that. */
  rotatedMs: number | null;
  revoked: boolean;
}

export interface AccessTokenRec {
  jti: string;
  familyId: string;
  userId: string;
  clientId: string;
  expMs: number;
  revoked: boolean;
  forcedExpired: boolean;
}

export interface IdentityState {
  privateJwk: JWK;
  publicJwk: JWK;
  users: UserRec[];
  connections: ConnectionRec[];
  refreshTokens: RefreshTokenRec[];
  accessTokens: AccessTokenRec[];
}

export interface AccountRec {
  AccountID: string;
  Code?: string;
  Name: string;
  Type: string;
  Status: 'ACTIVE' | 'ARCHIVED' | 'DELETED';
  Class: AccountClass;
  BankAccountType?: 'BANK' | 'CREDITCARD' | 'PAYPAL' | 'NONE' | '';
  BankAccountNumber?: string;
  TaxType: string;
  EnablePaymentsToAccount: boolean;
  ShowInExpenseClaims: boolean;
  SystemAccount?: string;
  Description?: string;
  ReportingCode?: string;
  updatedMs: number;
}

export interface TaxRateRec {
  Name: string;
  TaxType: string;
  ReportTaxType: string;
  /** Percent ×10 000 (20% = 200 000): the rate a line's VAT is worked out at (Xero's EffectiveRate). */
  rateE4: number;
  /**
   * The rate shown (Xero's DisplayTaxRate) when it differs from the effective one: the domestic reverse charge
   * shows 20 % but puts no VAT on the bill's total (the contractor accounts for it on the VAT return).
   */
  displayE4?: number;
  Status: 'ACTIVE' | 'DELETED' | 'ARCHIVED' | 'PENDING';
  revenue: boolean;
  expenses: boolean;
  assets: boolean;
  liabilities: boolean;
  equity: boolean;
}

export interface CisContactSetting {
  enabled: boolean;
  /** 0 (gross), 20 (standard, verified) or 30 (higher rate: not verified). Only when enabled. */
  rate?: 0 | 20 | 30;
}

export interface ContactRec {
  ContactID: string;
  ContactNumber?: string;
  Name: string;
  FirstName?: string;
  LastName?: string;
  EmailAddress?: string;
  ContactStatus: 'ACTIVE' | 'ARCHIVED' | 'GDPRREQUEST';
  IsSupplier: boolean;
  IsCustomer: boolean;
  TaxNumber?: string;
  AccountsReceivableTaxType?: string;
  AccountsPayableTaxType?: string;
  SalesDefaultAccountCode?: string;
  PurchasesDefaultAccountCode?: string;
  cis: CisContactSetting | null;
  updatedMs: number;
}

export interface ContactGroupRec {
  ContactGroupID: string;
  Name: string;
  Status: 'ACTIVE' | 'DELETED';
  contactIds: string[];
}

export type InvoiceType = 'ACCREC' | 'ACCPAY';
export type InvoiceStatus = 'DRAFT' | 'SUBMITTED' | 'AUTHORISED' | 'PAID' | 'VOIDED' | 'DELETED';

export interface LineRec {
  LineItemID: string;
  Description: string;
  quantityE4: number;
  unitE4: number;
  discountE2: number;
  AccountCode?: string;
  AccountID?: string;
  TaxType: string;
  lineAmount: number;
  taxAmount: number;
}

export interface InvoiceRec {
  InvoiceID: string;
  Type: InvoiceType;
  InvoiceNumber: string;
  Reference: string;
  /** "URL link to a source document", shown in Xero as "Go to [appName]" (xero_accounting.yaml Invoice.Url). */
  Url?: string;
  ContactID: string;
  Date: string;
  DueDate: string | null;
  LineAmountTypes: LineAmountTypes;
  Status: InvoiceStatus;
  lines: LineRec[];
  subTotal: number;
  totalTax: number;
  total: number;
  amountPaid: number;
  /**
   * UK CIS: the deduction Xero computes on a bill of a CIS subcontractor's labour lines (coded to the CIS Labour
   * Expense system account), in pence, and its rate in percent; absent on every other document. What the
   * subcontractor is owed (the amount due) is the total less this.
   */
  cisDeduction?: number;
  cisRate?: number;
  /** Pence of supplier or customer credit notes allocated to it (issue 42); absent when none. */
  amountCredited?: number;
  fullyPaidOnDate: string | null;
  sentToContact: boolean;
  createdByClientId: string | null;
  createdMs: number;
  updatedMs: number;
}

/** A credit note's allocation to an invoice or bill (pence). */
export interface CreditAllocationRec {
  AllocationID: string;
  InvoiceID: string;
  amount: number;
  Date: string;
}

/** Cash refunded against a credit note (pence): by the supplier for ACCPAYCREDIT. */
export interface CreditRefundRec {
  PaymentID: string;
  AccountID: string;
  Date: string;
  amount: number;
  Status: 'AUTHORISED' | 'DELETED';
}

/**
 * A credit note (issue 42: supplier credit notes from CIS subcontractors), entered as a person does in Xero's web
 * app; allocated to bills and refunded in cash. `cisDeduction`/`cisRate` as on a bill (Xero's CIS, CIS Labour
 * Expense lines of a CIS contact).
 */
export interface CreditNoteRec {
  CreditNoteID: string;
  CreditNoteNumber: string;
  Type: 'ACCPAYCREDIT' | 'ACCRECCREDIT';
  ContactID: string;
  Date: string;
  LineAmountTypes: LineAmountTypes;
  Status: 'AUTHORISED' | 'PAID' | 'VOIDED' | 'DELETED';
  lines: LineRec[];
  subTotal: number;
  totalTax: number;
  total: number;
  cisDeduction?: number;
  cisRate?: number;
  allocations: CreditAllocationRec[];
  refunds: CreditRefundRec[];
  createdMs: number;
  updatedMs: number;
}

export interface PaymentRec {
  PaymentID: string;
  InvoiceID: string;
  AccountID: string;
  Date: string;
  amount: number;
  Reference: string;
  Status: 'AUTHORISED' | 'DELETED';
  PaymentType: 'ACCRECPAYMENT' | 'ACCPAYPAYMENT';
  IsReconciled: boolean;
  updatedMs: number;
}

export type JournalStatus = 'DRAFT' | 'POSTED' | 'DELETED' | 'VOIDED' | 'ARCHIVED';

export interface JournalLineRec {
  lineAmount: number;
  taxAmount: number;
  AccountID: string;
  AccountCode?: string;
  Description: string;
  TaxType: string;
}

export interface JournalRec {
  ManualJournalID: string;
  Narration: string;
  Date: string;
  Status: JournalStatus;
  LineAmountTypes: LineAmountTypes;
  ShowOnCashBasisReports: boolean;
  Url?: string;
  lines: JournalLineRec[];
  updatedMs: number;
}

export interface AttachmentRec {
  AttachmentID: string;
  InvoiceID: string;
  FileName: string;
  MimeType: 'application/pdf' | 'image/png';
  /** Text drawn into the generated file (receipt title). */
  title: string;
  IncludeOnline: boolean;
}

export interface OrgRec {
  OrganisationID: string;
  Name: string;
  LegalName: string;
  ShortCode: string;
  TaxNumber: string;
  RegistrationNumber: string;
  createdMs: number;
  periodLockDate: string | null;
  salesTermsDays: number;
  billTermsDays: number;
  cis: { contractor: boolean; subContractor: boolean; rate?: number };
  accounts: AccountRec[];
  taxRates: TaxRateRec[];
  contacts: ContactRec[];
  contactGroups: ContactGroupRec[];
  invoices: InvoiceRec[];
  payments: PaymentRec[];
  /** Credit notes (absent in states saved before issue 42: none). */
  creditNotes?: CreditNoteRec[];
  journals: JournalRec[];
  attachments: AttachmentRec[];
  nextInvoiceNumber: number;
  /** A practice client's kind of business (seed-practice.ts, issue 47); absent for the demo organisations. */
  practiceKind?: 'shop' | 'contractor' | 'services';
}

export interface SandboxState {
  version: number;
  seed: number;
  scale: number;
  /** Client organisations seeded for the owner beside the two demo ones (issue 47); absent: none. */
  practiceClients?: number;
  seededAtMs: number;
  identity: IdentityState;
  orgs: OrgRec[];
}
