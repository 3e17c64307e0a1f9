/**
 * Demo mode's HMRC (issue 43): the built-in HMRC sandbox started beside the Xero one, on loopback, with its state
 * under DATA_DIR; and, at the demo's first start, Demo Builders Ltd set up to file as a person would through the
 * app's own routes: the contractor's references and Government Gateway credentials HMRC's sandbox knows, and each
 * subcontractor's UTR as HMRC's register has it (only where none is kept).
 */
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { ServerConfig } from './config/env';

export async function startDemoHmrcSandbox(config: ServerConfig) {
  const { startHmrcSandbox } = await import('../sandbox/hmrc/hmrc-sandbox');
  return startHmrcSandbox({
    host: '127.0.0.1',
    port: config.hmrc.sandboxPort,
    dataDir: path.join(config.dataDir, 'hmrc-sandbox'),
  });
}
export type DemoHmrcSandbox = Awaited<ReturnType<typeof startDemoHmrcSandbox>>;

type Call = (
  method: 'GET' | 'POST' | 'PATCH' | 'PUT',
  url: string,
  payload?: unknown,
) => Promise<LightMyRequestResponse>;

export async function prepareHmrcDemo(options: {
  call: Call;
  expectStatus: (step: string, res: LightMyRequestResponse, status: number) => void;
  organizations: Array<{ id: number; tenantName: string | null }>;
  hmrc: DemoHmrcSandbox;
}): Promise<void> {
  const { call, expectStatus, hmrc } = options;
  const scheme = hmrc.scheme;
  const org = options.organizations.find((o) => o.tenantName === scheme.name);
  if (!org) return;
  const q = `org=${org.id}`;
  const settingsRes = await call('GET', `/api/xero/cis/settings?${q}`);
  expectStatus(`reading the CIS settings of ${scheme.name}`, settingsRes, 200);
  const settings = JSON.parse(settingsRes.body) as {
    contractorName: string | null;
    utr: string | null;
    employerReference: string | null;
    accountsOfficeReference: string | null;
    materialsAccountCodes: string[];
  };
  if (!settings.utr || !settings.employerReference || !settings.accountsOfficeReference)
    expectStatus(
      `saving the CIS references of ${scheme.name}`,
      await call('PUT', `/api/xero/cis/settings?${q}`, {
        contractorName: settings.contractorName,
        utr: settings.utr ?? scheme.utr,
        employerReference:
          settings.employerReference ?? `${scheme.taxOfficeNumber}/${scheme.taxOfficeReference}`,
        accountsOfficeReference: settings.accountsOfficeReference ?? scheme.accountsOfficeReference,
        materialsAccountCodes: settings.materialsAccountCodes,
      }),
      200,
    );
  expectStatus(
    `saving the HMRC credentials of ${scheme.name}`,
    await call('PUT', `/api/xero/cis/hmrc/credentials?${q}`, {
      userId: scheme.senderId,
      password: scheme.password,
    }),
    200,
  );
  // The contacts read from Xero first (CIS Bills' list), then each subcontractor's UTR as HMRC has it.
  expectStatus('reading the CIS contacts', await call('GET', `/api/xero/cis-contacts?${q}`), 200);
  const listed = await call('GET', `/api/xero/cis/subcontractors/verifications?${q}`);
  expectStatus('reading the subcontractors', listed, 200);
  const { subcontractors } = JSON.parse(listed.body) as {
    subcontractors: Array<{ contactId: string; name: string; utr: string | null }>;
  };
  for (const sub of subcontractors) {
    if (sub.utr) continue;
    const registered = hmrc.register().find((r) => r.name === sub.name);
    if (!registered) continue;
    expectStatus(
      `saving the UTR of ${sub.name}`,
      await call('PUT', `/api/xero/cis/subcontractors/${sub.contactId}?${q}`, {
        utr: registered.utr,
        verificationNumber: null,
      }),
      200,
    );
  }
}
