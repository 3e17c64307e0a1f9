import { describe, expect, it } from 'vitest';
import {
  ATTACHMENT_ZOOM,
  PAYMENT_ERROR_EVENT,
  paymentErrorEventDetailSchema,
  stepAttachmentZoom,
  SUCCESS_BANNER_MS,
} from './screen';

describe('Pay Invoices screen (001 §4, §9)', () => {
  it('keeps the spec timings and event', () => {
    expect(SUCCESS_BANNER_MS).toBe(1500);
    expect(PAYMENT_ERROR_EVENT).toBe('xero-payment-error');
    expect(paymentErrorEventDetailSchema.parse({ needsRefresh: true, invoiceId: 'i1' })).toEqual({
      needsRefresh: true,
      invoiceId: 'i1',
    });
  });

  it('clamps attachment zoom between 0.5 and 3 without drift', () => {
    expect(ATTACHMENT_ZOOM.initial).toBe(3);
    expect(stepAttachmentZoom(3, ATTACHMENT_ZOOM.buttonStep)).toBe(3);
    expect(stepAttachmentZoom(3, -ATTACHMENT_ZOOM.buttonStep)).toBe(2.75);
    expect(stepAttachmentZoom(0.6, -ATTACHMENT_ZOOM.buttonStep)).toBe(0.5);
    let zoom: number = ATTACHMENT_ZOOM.initial;
    for (let i = 0; i < 7; i++) zoom = stepAttachmentZoom(zoom, -ATTACHMENT_ZOOM.wheelStep);
    expect(zoom).toBe(2.3);
  });
});
