import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as addInvoices from './add-invoices';
import * as cisBills from './cis-bills';
import * as money from './money';
import * as payInvoices from './pay-invoices';
import * as settings from './settings';
import * as stockJournal from './stock-journal';

// The server hands these schemas to fastify-type-provider-zod, which turns request schemas into JSON Schema
// as input and response/entity schemas as output. A transform in an output schema cannot be represented
// there, so only the client-side "Lenient" readers may carry one.
const modules = { addInvoices, cisBills, money, payInvoices, settings, stockJournal };

describe('shared schemas convert to JSON Schema', () => {
  for (const [moduleName, mod] of Object.entries(modules)) {
    for (const [name, value] of Object.entries(mod)) {
      if (!name.endsWith('Schema') || !(value instanceof z.ZodType)) continue;
      const io =
        /(Request|Query|Params)Schema$/.test(name) || name.endsWith('LenientSchema') ? 'input' : 'output';
      it(`${moduleName}.${name} (${io})`, () => {
        expect(() => z.toJSONSchema(value, { io })).not.toThrow();
      });
    }
  }
});
