import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import type { UsersRepository } from '../auth/auth.repository';
import type { LoginLimiter } from '../auth/login-limiter';
import { createAdminRepository } from './admin.repository';
import { registerAdminRoutes } from './admin.routes';
import { createAdminService } from './admin.service';
import { createWriteReviewService } from './write-review.service';

/**
 * Admin's entry (issue 46): users and their sign-in limits (given by the auth module), the activity log, and the
 * writes that need review (the ledger's own list, decision 015).
 */
export function adminModule(parts: SharedParts, deps: { users: UsersRepository; limiter: LoginLimiter }) {
  return {
    register(app) {
      registerAdminRoutes(app, {
        service: createAdminService({
          admin: createAdminRepository(parts.db),
          users: deps.users,
          audit: parts.audit,
          limiter: deps.limiter,
        }),
        review: createWriteReviewService({ ledger: parts.ledger }),
      });
    },
  } satisfies ModuleEntry;
}
