import type { ServerConfig } from '../config/env';
import type { Database } from '../db/client';
import type { XeroEndpoints } from '../xero/endpoints';
import type { XeroHttpOptions } from '../xero/xero-http/http';
import type { SharedGateOptions } from '../xero/xero-http/shared-gate';

/** What buildApp is given: the configuration, the database, Xero's addresses, and what tests tune. */
export interface BuildAppOptions {
  config: ServerConfig;
  database: Database;
  xero: XeroEndpoints;
  /** Where returns go when not HMRC_ENDPOINT's: demo mode's built-in HMRC sandbox (issue 43). */
  hmrc?: { submissionUrl: string; kind: 'sandbox' } | undefined;
  /** false silences request logs (tests); an object is passed to pino. */
  logger?: boolean | Record<string, unknown>;
  /** Folder of the built client; defaults to dist/client. */
  clientDir?: string;
  /**
   * Demo mode only: the bootstrap admin's credentials, offered to the development helper
   * (docs/product/shell.md §6).
   */
  demoCredentials?: { username: string; password: string } | undefined;
  /** Tests tune retries and back-off of the Xero client (and may hold its calls at the gate). */
  xeroHttp?: Partial<
    Pick<
      XeroHttpOptions,
      'backoffMs' | 'maxAttempts' | 'maxRetryAfterMs' | 'timeoutMs' | 'gate' | 'createGate'
    >
  >;
  /** How long a request waits for HMRC's answer before answering "sending" (tests shorten it; issue 43). */
  hmrcWaitMs?: { verify?: number; submit?: number };
  /** On PostgreSQL: limits of the Xero gate shared by all instances (tests lower them with the sandbox's). */
  xeroGate?: Partial<SharedGateOptions>;
  /**
   * Tests: each request first waits until this instance has read every change notice committed before it
   * (principal-cache.ts `settled`). An injected request runs in the very tick a test's write returns, before a
   * PostgreSQL notice can be read off its socket; a request over a network arrives after it.
   */
  settleNoticesFirst?: boolean;
}
