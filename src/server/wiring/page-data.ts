import type { FastifyRequest } from 'fastify';
import { AppError } from '../lib/app-error';
import type { SessionStore } from '../modules/auth/sessions';
import type { ResolveTenant } from '../modules/organizations/tenancy';
import type { PageData } from './module-entry';

/**
 * A page of the client was asked for (its HTML, spa.ts): starts reading what that page will ask for first from
 * Xero, for the signed-in user's active organisation where they may use the page's feature (issue 32). The pages
 * are the modules' own (`pageData` of their entries). Never throws: a page asked for signed out, without access or
 * with the feature off starts nothing.
 */
export function createPageDataStarter(
  deps: { sessions: SessionStore; resolveTenant: ResolveTenant },
  pages: PageData[],
) {
  const { sessions, resolveTenant } = deps;
  const pageData = new Map(pages.map((page) => [page.path, page]));
  return async function startPageData(request: FastifyRequest, pathname: string): Promise<void> {
    const page = pageData.get(pathname);
    if (!page) return;
    try {
      // The page shows the active organisation (the client's choice is kept on the server; a page's own query
      // string names none the client reads): the same session, membership, connection and feature checks as the
      // page's own requests, through the same code.
      const principal = await sessions.loadPrincipal(request, 0);
      if (!principal.session || principal.session.mfaPending) return;
      request.principal = principal;
      request.session = principal.session;
      request.queriedOrganization = [];
      await page.start(await resolveTenant(request, page.feature));
    } catch (error) {
      // Refused (no active organisation, not connected, feature off) or Xero failed: the page's own request
      // meets the same and tells the user; nothing here is theirs to see.
      if (error instanceof AppError && error.statusCode < 500)
        request.log.debug({ err: error }, 'page data not started');
      else request.log.warn({ err: error }, `reading ${pathname}'s data with the page failed`);
    }
  };
}
