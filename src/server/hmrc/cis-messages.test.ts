import { describe, expect, it } from 'vitest';
import {
  buildMonthlyReturn,
  buildVerificationRequest,
  MessageRulesError,
  readVerificationResults,
  splitEmployerReference,
  toHmrcText,
  toWholePoundsPence,
  type MonthlyReturnInput,
} from './cis-messages';
import { parseGovTalkAnswer } from './govtalk';
import { computeIrMark } from './irmark';
import { prepareSubmission, withPassword, PASSWORD_PLACEHOLDER } from './transaction-engine';
import { toXml } from './xml';

const contractor = {
  utr: '1234567890',
  accountsOfficeReference: '123PA00012345',
  employerReference: '123/DB45678',
};
const declarations = { employmentStatus: true, verification: true, informationCorrect: true };
const base: MonthlyReturnInput = {
  contractor,
  periodEnd: '2026-12-05',
  inactive: false,
  declarations,
  subcontractors: [
    {
      name: { tradingName: 'Hughes Groundworks Ltd' },
      utr: '1111111111',
      verificationNumber: null,
      unmatched: false,
      grossPence: 245_099,
      materialsPence: 0,
      deductionPence: 49_000,
    },
    {
      name: { tradingName: 'Stone & Sons Brickwork' },
      utr: '2222222222',
      verificationNumber: 'V1234567890AB',
      unmatched: true,
      grossPence: 50_000,
      materialsPence: 10_050,
      deductionPence: 12_000,
    },
  ],
};

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof MessageRulesError) return error.problems.map((p) => p.field);
    throw error;
  }
  return [];
}

describe('the monthly return (IR-CIS-CIS300MR), against CISreturn-v1-2.xsd', () => {
  it('writes the elements in the schema order, payments and materials in whole pounds, deductions in pence', () => {
    const xml = toXml(buildMonthlyReturn(base).envelope);
    expect(xml).toContain('<IRenvelope xmlns="http://www.govtalk.gov.uk/taxation/CISreturn">');
    expect(xml).toMatch(
      /<TradingName>Stone &amp; Sons Brickwork<\/TradingName>\s*<UnmatchedRate>yes<\/UnmatchedRate>\s*<UTR>2222222222<\/UTR>\s*<VerificationNumber>V1234567890AB<\/VerificationNumber>\s*<TotalPayments>500.00<\/TotalPayments>\s*<CostOfMaterials>100.00<\/CostOfMaterials>\s*<TotalDeducted>120.00<\/TotalDeducted>/,
    );
    expect(xml).toContain('<TotalPayments>2450.00</TotalPayments>');
    expect(xml).toContain('<TotalDeducted>490.00</TotalDeducted>');
    expect(xml).toMatch(
      /<EmploymentStatus>yes<\/EmploymentStatus>\s*<Verification>yes<\/Verification>\s*<InformationCorrect>yes/,
    );
    expect(xml).not.toContain('NilReturn');
  });

  it('a nil return carries NilReturn and only the information declaration; "scheme inactive" adds Inactivity', () => {
    const xml = toXml(
      buildMonthlyReturn({
        ...base,
        subcontractors: [],
        inactive: true,
        declarations: { employmentStatus: false, verification: false, informationCorrect: true },
      }).envelope,
    );
    expect(xml).toMatch(
      /<NilReturn>yes<\/NilReturn>\s*<Declarations>\s*<InformationCorrect>yes<\/InformationCorrect>\s*<Inactivity>yes/,
    );
  });

  it('refuses what the schema and HMRC refuse, naming each', () => {
    expect(
      problemsOf(() =>
        buildMonthlyReturn({ ...base, declarations: { ...declarations, verification: false } }),
      ),
    ).toEqual(['declarations.verification']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({ ...base, declarations: { ...declarations, informationCorrect: false } }),
      ),
    ).toEqual(['declarations.informationCorrect']);
    expect(
      problemsOf(() => buildMonthlyReturn({ ...base, contractor: { ...contractor, utr: '12345' } })),
    ).toEqual(['contractor.utr']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({
          ...base,
          contractor: { ...contractor, accountsOfficeReference: '123XA00012345' },
        }),
      ),
    ).toEqual(['contractor.accountsOfficeReference']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({ ...base, contractor: { ...contractor, employerReference: 'DB45678' } }),
      ),
    ).toEqual(['contractor.employerReference']);
    const [hughes, stone] = base.subcontractors as [
      MonthlyReturnInput['subcontractors'][0],
      MonthlyReturnInput['subcontractors'][0],
    ];
    expect(
      problemsOf(() => buildMonthlyReturn({ ...base, subcontractors: [{ ...hughes, utr: null }] })),
    ).toEqual(['subcontractors.0.utr']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({ ...base, subcontractors: [{ ...stone, verificationNumber: null }] }),
      ),
    ).toEqual(['subcontractors.0.verificationNumber']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({ ...base, subcontractors: [{ ...stone, verificationNumber: 'V12345678901I' }] }),
      ),
    ).toEqual(['subcontractors.0.verificationNumber']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({
          ...base,
          subcontractors: [{ ...hughes, name: { tradingName: 'x'.repeat(57) } }],
        }),
      ),
    ).toEqual(['subcontractors.0.name']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({ ...base, subcontractors: [{ ...hughes, name: { tradingName: 'Bau 中文' } }] }),
      ),
    ).toEqual(['subcontractors.0.name']);
    expect(
      problemsOf(() =>
        buildMonthlyReturn({ ...base, subcontractors: [{ ...hughes, deductionPence: 10_000_000_000 }] }),
      ),
    ).toEqual(['subcontractors.0.deduction']);
    expect(problemsOf(() => buildMonthlyReturn({ ...base, periodEnd: '2026-12-06' }))).toEqual(['periodEnd']);
  });

  it("names in HMRC's character set: accents and curly quotes made plain", () => {
    expect(toHmrcText('  M. O’Connor  Scaffolding ')).toBe("M. O'Connor Scaffolding");
    expect(toHmrcText('Zoë Brontë Décor')).toBe('Zoe Bronte Decor');
  });

  it('pence are dropped from payments, never rounded up', () => {
    expect(toWholePoundsPence(245_099)).toBe(245_000);
    expect(toWholePoundsPence(-5)).toBe(0);
  });

  it('the employer reference splits into the GovTalk keys', () => {
    expect(splitEmployerReference('123/db45678')).toEqual({
      taxOfficeNumber: '123',
      taxOfficeReference: 'DB45678',
    });
    expect(splitEmployerReference('12/AB')).toBeNull();
  });
});

describe('the verification request (IR-CIS-VERIFY), against CISverification-v1-2.xsd', () => {
  it('a company by trading name, UTR and CRN; a sole trader by name, UTR and NINO', () => {
    const xml = toXml(
      buildVerificationRequest({
        contractor,
        periodEnd: '2026-12-05',
        subcontractors: [
          {
            type: 'company',
            name: { tradingName: 'Hughes Groundworks Ltd' },
            utr: '1111111111',
            crn: '01234567',
          },
          { type: 'soletrader', name: { fore: 'Anil', sur: 'Patel' }, utr: '3333333333', nino: 'AB123456C' },
        ],
      }).envelope,
    );
    expect(xml).toContain('<IRenvelope xmlns="http://www.govtalk.gov.uk/taxation/CISrequest">');
    expect(xml).toMatch(
      /<Action>verify<\/Action>\s*<Type>company<\/Type>\s*<TradingName>Hughes Groundworks Ltd<\/TradingName>\s*<UTR>1111111111<\/UTR>\s*<CRN>01234567<\/CRN>/,
    );
    expect(xml).toMatch(
      /<Type>soletrader<\/Type>\s*<Name>\s*<Fore>Anil<\/Fore>\s*<Sur>Patel<\/Sur>\s*<\/Name>\s*<UTR>3333333333<\/UTR>\s*<NINO>AB123456C<\/NINO>/,
    );
    expect(xml).toMatch(/<Declaration>yes<\/Declaration>/);
  });

  it('refuses a temporary NINO, a CRN of another shape and more than 100 subcontractors', () => {
    const one = {
      type: 'soletrader' as const,
      name: { fore: 'Anil', sur: 'Patel' },
      utr: '3333333333',
      nino: 'TN123456M',
    };
    expect(
      problemsOf(() =>
        buildVerificationRequest({ contractor, periodEnd: '2026-12-05', subcontractors: [one] }),
      ),
    ).toEqual(['subcontractors.0.nino']);
    expect(
      problemsOf(() =>
        buildVerificationRequest({
          contractor,
          periodEnd: '2026-12-05',
          subcontractors: [
            { type: 'company', name: { tradingName: 'A Ltd' }, utr: '1111111111', crn: '123456789' },
          ],
        }),
      ),
    ).toEqual(['subcontractors.0.crn']);
    const many = Array.from({ length: 101 }, () => ({ ...one, nino: 'AB123456C' }));
    expect(
      problemsOf(() =>
        buildVerificationRequest({ contractor, periodEnd: '2026-12-05', subcontractors: many }),
      ),
    ).toEqual(['subcontractors']);
  });

  it("reads HMRC's answer: matched net (20 %), gross (0 %), unmatched (30 %)", () => {
    const answer =
      parseGovTalkAnswer(`<GovTalkMessage xmlns="http://www.govtalk.gov.uk/CM/envelope"><Header><MessageDetails><Class>IR-CIS-VERIFY</Class><Qualifier>response</Qualifier><Function>submit</Function><CorrelationID>X</CorrelationID></MessageDetails></Header><GovTalkDetails><Keys/></GovTalkDetails><Body><SuccessResponse xmlns="http://www.inlandrevenue.gov.uk/SuccessResponse"><ResponseData><CISresponse xmlns="http://www.govtalk.gov.uk/taxation/CISresponse">
      <Subcontractor><Name><Fore>Noel</Fore><Sur>Armstrong</Sur></Name><UTR>8786438047</UTR><Matched>Y</Matched><TaxTreatment>net</TaxTreatment><VerificationNumber>V1000000007</VerificationNumber></Subcontractor>
      <Subcontractor><TradingName>Northside Electrical Ltd</TradingName><UTR>4444444444</UTR><Matched>Y</Matched><TaxTreatment>gross</TaxTreatment><VerificationNumber>V1000000007</VerificationNumber></Subcontractor>
      <Subcontractor><TradingName>Nobody</TradingName><UTR>5555555555</UTR><Matched>N</Matched><TaxTreatment>unmatched</TaxTreatment><VerificationNumber>V1000000007A</VerificationNumber></Subcontractor>
      </CISresponse></ResponseData></SuccessResponse></Body></GovTalkMessage>`);
    expect(
      readVerificationResults(answer.body).map((r) => [r.name, r.matched, r.rate, r.verificationNumber]),
    ).toEqual([
      ['Noel Armstrong', true, 20, 'V1000000007'],
      ['Northside Electrical Ltd', true, 0, 'V1000000007'],
      ['Nobody', false, 30, 'V1000000007A'],
    ]);
  });
});

describe('a submission as sent', () => {
  it('carries GatewayTest, the vendor ID, the IRmark of its own Body, and the password only in the copy sent', () => {
    const { envelope, keys } = buildMonthlyReturn(base);
    const sender = {
      senderId: 'DEMOBUILD01',
      password: 'p<&>ss',
      vendorId: '1234',
      product: 'Ledgerlink',
      version: '0.1.0',
      gatewayTest: true,
    };
    const m = prepareSubmission({
      messageClass: 'IR-CIS-CIS300MR',
      transactionId: 'T1',
      sender,
      keys,
      envelope,
      timestamp: '2026-12-10T09:00:00',
    });
    expect(m.recorded).not.toContain('p<&>ss');
    expect(m.recorded).toContain(`<Value>${PASSWORD_PLACEHOLDER}</Value>`);
    expect(m.xml).toContain('<Value>p&lt;&amp;&gt;ss</Value>');
    expect(withPassword(m.recorded, 'p<&>ss')).toBe(m.xml);
    expect(m.xml).toContain('<GatewayTest>1</GatewayTest>');
    expect(m.xml).toContain('<URI>1234</URI>');
    expect(m.xml).toContain('<TransactionID>T1</TransactionID>');
    expect(m.xml).toContain(`<IRmark Type="generic">${m.irmark.base64}</IRmark>`);
    expect(computeIrMark(m.xml).base64).toBe(m.irmark.base64);
    expect(m.xml).toMatch(
      /<Key Type="TaxOfficeNumber">123<\/Key>\s*<Key Type="TaxOfficeReference">DB45678<\/Key>/,
    );
  });
});
