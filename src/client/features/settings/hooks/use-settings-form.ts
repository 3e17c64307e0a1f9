import { useMemo, useState } from 'react';
import {
  DEFAULT_ID_FIELDS,
  SETTING_FIELD_LABELS,
  normalizeSelectValue,
  parseMarginRateOnSave,
  parseMarginRateWhileEditing,
  toSelectValue,
  type ConnectionDefaults,
  type DefaultIdField,
  type PostingStatus,
  type SettingsUpdateRequestInput,
  type TaxStatus,
} from '@/shared/settings';

/** The form's values: select values ("none" for no default), the two statuses, and the margin as typed. */
export interface SettingsFormValues {
  ids: Record<DefaultIdField, string>;
  taxStatus: TaxStatus;
  postingStatus: PostingStatus;
  marginText: string;
}

export type SettingsField = keyof ConnectionDefaults;

export function toFormValues(defaults: ConnectionDefaults): SettingsFormValues {
  const ids = Object.fromEntries(
    DEFAULT_ID_FIELDS.map((field) => [field, toSelectValue(defaults[field])]),
  ) as Record<DefaultIdField, string>;
  return {
    ids,
    taxStatus: defaults.defaultTaxStatus,
    postingStatus: defaults.defaultStockJournalPostingStatus,
    marginText: String(defaults.defaultStockJournalMarginRate),
  };
}

/**
 * The PATCH body: every default of docs/product/shell.md §3, "none" sent as null, and the margin rate read by
 * the save rule of docs/product/shell.md §5 (an unparsable value becomes 1.35).
 */
export function toSettingsRequest(values: SettingsFormValues): SettingsUpdateRequestInput {
  const ids = Object.fromEntries(
    DEFAULT_ID_FIELDS.map((field) => [field, normalizeSelectValue(values.ids[field])]),
  );
  return {
    ...ids,
    defaultTaxStatus: values.taxStatus,
    defaultStockJournalPostingStatus: values.postingStatus,
    defaultStockJournalMarginRate: parseMarginRateOnSave(values.marginText),
  };
}

/** Which field a server refusal is about: its message starts with the field's label ("Stock account: …"). */
export function findFieldOfMessage(message: string): SettingsField | null {
  const entries = Object.entries(SETTING_FIELD_LABELS) as Array<[SettingsField, string]>;
  // Longest label first, so "Bill VAT rate" wins over "VAT rate".
  const sorted = [...entries].sort((a, b) => b[1].length - a[1].length);
  const found = sorted.find(
    ([, label]) => message.startsWith(`${label}:`) || message.startsWith(`${label} `),
  );
  return found ? found[0] : null;
}

export function useSettingsForm(defaults: ConnectionDefaults) {
  const [initial, setInitial] = useState(() => toFormValues(defaults));
  const [values, setValues] = useState(initial);
  const [fieldError, setFieldError] = useState<{ field: SettingsField; message: string } | null>(null);

  const dirty = useMemo(
    () => JSON.stringify(toSettingsRequest(values)) !== JSON.stringify(toSettingsRequest(initial)),
    [values, initial],
  );

  function clearErrorOf(field: SettingsField) {
    setFieldError((current) => (current?.field === field ? null : current));
  }

  return {
    values,
    dirty,
    fieldError,
    setFieldError,
    /**
     * The margin rate as the form uses it while editing: invalid input counts as 1
     * (docs/product/shell.md §5).
     */
    editingMarginRate: parseMarginRateWhileEditing(values.marginText),
    setId(field: DefaultIdField, value: string) {
      setValues((v) => ({ ...v, ids: { ...v.ids, [field]: value } }));
      clearErrorOf(field);
    },
    setTaxStatus(value: TaxStatus) {
      setValues((v) => ({ ...v, taxStatus: value }));
      clearErrorOf('defaultTaxStatus');
    },
    setPostingStatus(value: PostingStatus) {
      setValues((v) => ({ ...v, postingStatus: value }));
      clearErrorOf('defaultStockJournalPostingStatus');
    },
    setMarginText(value: string) {
      setValues((v) => ({ ...v, marginText: value }));
      clearErrorOf('defaultStockJournalMarginRate');
    },
    /** After a save: what was saved becomes the new starting point. */
    markSaved(saved: ConnectionDefaults) {
      const next = toFormValues(saved);
      setInitial(next);
      setValues(next);
      setFieldError(null);
    },
  };
}
export type SettingsForm = ReturnType<typeof useSettingsForm>;
