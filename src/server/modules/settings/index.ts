import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { registerSettingsRoutes } from './settings.routes';
import { createSettingsService } from './settings.service';
import { createSettingsRepository } from './settings.repository';

/** Settings' entry (issue 46): each organisation's settings for the features, checked against what Xero holds. */
export function settingsModule(parts: SharedParts) {
  const settings = createSettingsService({
    repo: createSettingsRepository(parts.db),
    sync: parts.sync,
    accounts: parts.xero.accounts,
    audit: parts.audit,
    ledger: parts.ledger,
  });
  return {
    service: settings,
    register(app) {
      registerSettingsRoutes(app, { settings });
    },
  } satisfies ModuleEntry;
}
